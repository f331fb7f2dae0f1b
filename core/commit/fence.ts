import { type EngineMemory, MAX_PENDING_MARKS } from '../engine-memory.ts';
import type { Frontier, FrontierInputs } from '../frontier.ts';

/** What the fence writes: the frontier's cursors and the marks it cuts. */
export interface FenceTarget {
  readonly frontier: Frontier;
  readonly memory: EngineMemory;
  frontierInputs(): FrontierInputs;
}

/**
 * docs/behaviour.md I6: over the budget, every lossless fold counts, including spans the agent asked to keep
 * raw (holds). Pins, protected and open units still never fold. The holds stay recorded:
 * they only ever stop automatic cutting.
 *
 * A history that reaches the fence far over the budget (a long session pi-fold meets for the
 * first time) can hold more tool batches than marks may wait at once. Cut one fold per batch
 * there and the limit is spent on the oldest batches while the rest stays raw; so when the
 * limit binds, the fence's own cuts are taken back and made again as chapters alone, each
 * covering a run of batches.
 */
export function cutForFence(target: FenceTarget): void {
  const { memory } = target;
  const holds = memory.holds;
  const marksBefore = [...memory.marks];
  memory.holds = [];
  try {
    cutUntilDone(target, true);
    if (memory.marks.length >= MAX_PENDING_MARKS) {
      memory.marks = marksBefore;
      cutUntilDone(target, false);
    }
  } finally {
    memory.holds = holds;
  }
}

function cutUntilDone(target: FenceTarget, withToolFolds: boolean): void {
  target.frontier.reset();
  for (let pass = 0; pass < 1_000; pass += 1) {
    if (target.frontier.pass(target.frontierInputs(), withToolFolds).length === 0) break;
  }
}
