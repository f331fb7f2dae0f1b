import { type ModelMessage, pruneMessages } from 'ai';
import { AI_SDK_MAJOR } from '../../adapters/hosts/vercel-ai/ai-sdk-version.ts';
import type { SdkArmSetup } from './sdk-arms.ts';

/**
 * What a lossy arm's `prepareStep` sends instead of the step's messages, or `undefined` to
 * leave them as they are (under ai@7, the state the last override left carries on).
 */
export type HistoryPruner = (messages: ModelMessage[], lastPromptTokens: number) => ModelMessage[] | undefined;

/** The threshold ai@7's loop-control guide compacts at, in its own estimate (JSON chars ÷ 4). */
const AI7_GUIDE_THRESHOLD_TOKENS = 100_000;

/** Tool calls the ai@7 guide keeps when it compacts. */
const AI7_GUIDE_TOOL_CALLS_KEPT = 3;

/** The SDK's own pruning, with the settings of its reference page and a chosen tool-call horizon. */
function pruned(messages: ModelMessage[], toolCallsKept: number): ModelMessage[] {
  return pruneMessages({
    messages,
    reasoning: 'before-last-message',
    toolCalls: `before-last-${toolCallsKept}-messages`,
    emptyMessages: 'remove',
  });
}

/** The ai@7 guide's token estimate: a quarter of the messages' JSON length. */
function guideEstimate(messages: readonly ModelMessage[]): number {
  return JSON.stringify(messages).length / 4;
}

/**
 * The pruner of a `prune` or `prune-held` arm, written for the loaded SDK's `prepareStep`.
 *
 * ai@6 hands every step the full history and applies a returned list to that step only, so a
 * prune is recomputed from the full history each step. A held cut is a developer's tuning of
 * the same call: the horizon is pinned to a message index that moves only when the last prompt
 * passed the high-water mark, so the pruned prefix is the same from one step to the next.
 *
 * ai@7 keeps a returned list as the state later steps build on, and its loop-control guide
 * prunes only when that state has grown past a threshold. `prune` follows the guide (its
 * estimate, its threshold — never above half the window, so a small preset reaches it, as the
 * server clearing's trigger is scaled — and its settings); `prune-held` is the same tuning as
 * under ai@6 (its horizon, moved at its high-water mark), which ai@7 now holds by itself.
 */
export function historyPruner(setup: SdkArmSetup, windowTokens: number): HistoryPruner | undefined {
  if (setup.kind !== 'prune' && setup.kind !== 'prune-held') return undefined;
  if (AI_SDK_MAJOR === 7) return carriedPruner(setup, windowTokens);
  if (setup.kind === 'prune') return (messages) => pruned(messages, setup.toolCallsKept);
  let cut = 0;
  return (messages, lastPromptTokens) => {
    if (lastPromptTokens > setup.highWater * windowTokens) cut = Math.max(cut, messages.length - setup.toolCallsKept);
    return cut === 0 ? messages : pruned(messages, messages.length - cut);
  };
}

/** The ai@7 pruners: prune the carried state when it passes the mark, else leave it. */
export function carriedPruner(
  setup: Extract<SdkArmSetup, { kind: 'prune' | 'prune-held' }>,
  windowTokens: number,
): HistoryPruner {
  if (setup.kind === 'prune-held')
    return (messages, lastPromptTokens) =>
      lastPromptTokens > setup.highWater * windowTokens ? pruned(messages, setup.toolCallsKept) : undefined;
  const threshold = Math.min(AI7_GUIDE_THRESHOLD_TOKENS, windowTokens / 2);
  return (messages) =>
    guideEstimate(messages) > threshold
      ? pruneMessages({
          messages,
          reasoning: 'all',
          toolCalls: `before-last-${AI7_GUIDE_TOOL_CALLS_KEPT}-messages`,
          emptyMessages: 'remove',
        })
      : undefined;
}
