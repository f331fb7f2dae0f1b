import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { IdentifiedMessage } from '../message-entries.ts';
import type { BranchContext } from './branch-context.ts';
import { sameMessage, sameMessages } from './land-edits.ts';

/** The transcript the engine folds on the edit path, with what a `context` handler before pi-fold changed. */
export interface EarlierRewrites {
  readonly rawMessages: readonly IdentifiedMessage[];
  /** Whether Pi hands over its own projection untouched (no handler before pi-fold changed it). */
  readonly untouched: boolean;
  /** Changes that could not be matched to an entry (messages dropped or injected): reported, not folded. */
  readonly unaligned: number;
}

/**
 * The `context` event hands pi-fold Pi's projection as the handlers before it left it. pi-fold
 * folds what it is given, as on the hook path: a message such a handler changed replaces the
 * entry's own in the engine's transcript (the entry mapper then reports it, docs/pi.md,
 * "Ownership"). Changes to messages pi-fold itself edited are not taken: the window wins there.
 */
export function adoptEarlierRewrites(branch: BranchContext, sent: readonly AgentMessage[]): EarlierRewrites {
  if (sameMessages(sent, branch.projected)) return { rawMessages: branch.rawMessages, unaligned: 0, untouched: true };
  if (sent.length !== branch.projected.length)
    return {
      rawMessages: branch.rawMessages,
      unaligned: Math.abs(sent.length - branch.projected.length),
      untouched: false,
    };
  const rawMessages: IdentifiedMessage[] = [];
  let shown = 0;
  for (const item of branch.items) {
    if (item.state.kind === 'omitted') {
      if (!item.insert) rawMessages.push({ entryId: item.entryId, message: item.raw });
      continue;
    }
    const seen = sent[shown]!;
    const projected = branch.projected[shown]!;
    shown += 1;
    if (item.insert) continue;
    const message = item.state.kind === 'raw' && !sameMessage(seen, projected) ? seen : item.raw;
    rawMessages.push({ entryId: item.entryId, message });
  }
  return { rawMessages, unaligned: 0, untouched: false };
}
