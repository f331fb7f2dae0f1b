import { type EngineMemory, MAX_PENDING_MARKS } from '../state/engine-memory.ts';
import type { Frontier, FrontierInputs, PassMode } from '../state/frontier.ts';

/** What the fence writes: the frontier's cursors and the marks it cuts. */
export interface FenceTarget {
  readonly model: { readonly memory: EngineMemory };
  readonly services: { readonly frontier: Frontier };
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
 * limit binds, the tool cuts still pending are taken back and the history is cut again as
 * chapters alone, each covering a run of batches.
 */
export function cutForFence(target: FenceTarget): void {
  const { memory } = target.model;
  const marksBefore = [...memory.marks];
  memory.setHoldsAsideWhile(() => {
    cutUntilDone(target, { toolFolds: true, chapterMinUnits: 1 });
    if (memory.marks.length >= MAX_PENDING_MARKS) {
      // The runtime's own pending tool marks go too: a chapter over their batches covers them,
      // and nothing of theirs has landed. The agent's marks, every chapter and every mark to
      // refold a standing fold stay (that fold's span is cut no other way, docs/behaviour.md B6.7).
      const { lattice } = target.frontierInputs();
      memory.replaceMarks(
        marksBefore.filter(
          (mark) => mark.kind !== 'tool' || mark.origin !== 'runtime' || lattice.record(mark.id) !== undefined,
        ),
      );
      cutUntilDone(target, chaptersOnly(target));
    }
  });
}

function cutUntilDone(target: FenceTarget, mode: PassMode): void {
  const { frontier } = target.services;
  frontier.reset();
  for (let pass = 0; pass < 1_000; pass += 1) {
    if (frontier.pass(target.frontierInputs(), mode).length === 0) break;
  }
}

/**
 * Chapters long enough that the whole branch takes at most half the marks still free. On a
 * history of hundreds of MB that is longer than a chapter may usually be: it must be, or the
 * marks run out with the newest part of the history still raw and the request refused.
 */
function chaptersOnly(target: FenceTarget): PassMode {
  const free = Math.max(1, MAX_PENDING_MARKS - target.model.memory.marks.length);
  const units = target.frontierInputs().index.units.length;
  return { toolFolds: false, chapterMinUnits: Math.ceil((2 * units) / free) };
}
