import type { ProjectedMessage } from '../../ports/projected-message.ts';

/**
 * When a host offers the agent's fold tool (`toolOffer`; docs/pi.md and docs/vercel-ai.md, "Offering the fold tool"):
 * - `always`: from the first request on, as every host did before;
 * - `when-needed`: only once the window shows something the tool reads: a fold's placeholder
 *   or stub (from the first commit on, when the window is rewritten anyway) or a spilled item's
 *   pointer (its middle is read with `peek`); or the session already has standing folds (a
 *   restored one offers it at once). Until then its schema and guidelines would ride every
 *   request for nothing. A notice asking for briefs (docs/behaviour.md B5.3) does not bring it
 *   in: pending marks commit with deterministic briefs when none is given. Once offered the
 *   tool stays, so the tool list changes at most once per session.
 */
export const TOOL_OFFERS = ['always', 'when-needed'] as const;
export type ToolOffer = (typeof TOOL_OFFERS)[number];

/**
 * Whether the agent has anything to read through the fold tool: standing folds, or a placeholder,
 * stub or spill in the window.
 */
export function foldToolNeeded(standingFolds: number, window: readonly ProjectedMessage[] | undefined): boolean {
  return standingFolds > 0 || (window?.some(readsThroughTool) ?? false);
}

function readsThroughTool(message: ProjectedMessage): boolean {
  return (
    message.kind === 'stub' ||
    message.kind === 'spilled' ||
    (message.kind === 'synthetic' && message.origin === 'placeholder')
  );
}
