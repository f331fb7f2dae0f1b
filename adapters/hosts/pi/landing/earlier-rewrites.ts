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
  /**
   * Positions of the handed-over messages that differ from Pi's projection, in order (none when
   * untouched or unaligned): the landing needs no second look at the others.
   */
  readonly changed: readonly number[];
  /** How many of `changed` the transcript took in place of the entry's own message. */
  readonly adopted: number;
  /** Whether the engine is shown every message Pi hands over (pi-fold's recovery summary is not). */
  readonly whole: boolean;
}

/**
 * The `context` event hands pi-fold Pi's projection as the handlers before it left it. pi-fold
 * folds what it is given, as on the hook path: a message such a handler changed replaces the
 * entry's own in the engine's transcript (the entry mapper then reports it, docs/pi.md,
 * "Ownership"). Changes to messages pi-fold itself edited are not taken: the window wins there.
 * Each handed-over message the engine is shown is compared with Pi's projection once; the
 * positions that differ are kept for the landing's own question, whether what Pi hands over
 * is the window (`handedOverIsWindow`).
 */
export function adoptEarlierRewrites(
  branch: BranchContext,
  handedOver: readonly AgentMessage[],
  shown: (message: AgentMessage) => boolean,
): EarlierRewrites {
  const sent = handedOver.filter(shown);
  const whole = sent.length === handedOver.length;
  const projected = branch.projected;
  if (sent.length !== projected.length)
    return {
      rawMessages: branch.rawMessages,
      unaligned: Math.abs(sent.length - projected.length),
      untouched: false,
      changed: [],
      adopted: 0,
      whole,
    };
  const changed: number[] = [];
  for (let position = 0; position < sent.length; position += 1)
    if (!sameMessage(sent[position]!, projected[position]!)) changed.push(position);
  if (changed.length === 0)
    return { rawMessages: branch.rawMessages, unaligned: 0, untouched: true, changed, adopted: 0, whole };
  const rawMessages: IdentifiedMessage[] = [];
  let adopted = 0;
  let at = 0;
  let next = 0;
  for (const item of branch.items) {
    if (item.state.kind === 'omitted') {
      if (!item.insert) rawMessages.push({ entryId: item.entryId, message: item.raw });
      continue;
    }
    const differs = changed[next] === at;
    if (differs) next += 1;
    const seen = sent[at]!;
    at += 1;
    if (item.insert) continue;
    const taken = item.state.kind === 'raw' && differs;
    if (taken) adopted += 1;
    rawMessages.push({ entryId: item.entryId, message: taken ? seen : item.raw });
  }
  return { rawMessages, unaligned: 0, untouched: false, changed, adopted, whole };
}

/**
 * Whether what Pi hands over (`handedOver`, the event's messages) is the window, once an exact
 * plan with nothing to land says Pi's projection is. Where the handed-over messages equal Pi's
 * projection they equal the window, so only the positions that differ are looked at: an entry
 * the engine took from a handler before pi-fold is the very message the window shows. A
 * message the engine is not shown, or one a handler dropped or injected, leaves the two of
 * different lengths.
 */
export function handedOverIsWindow(
  earlier: EarlierRewrites,
  handedOver: readonly AgentMessage[],
  window: readonly AgentMessage[],
): boolean {
  if (!earlier.whole || earlier.unaligned > 0) return sameMessages(handedOver, window);
  if (handedOver.length !== window.length) return false;
  return earlier.changed.every(
    (position) => handedOver[position] === window[position] || sameMessage(handedOver[position]!, window[position]!),
  );
}
