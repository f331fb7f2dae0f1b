import type { PlacedFold } from '../folds/fold-lattice.ts';
import type { EngineMemory } from '../state/engine-memory.ts';
import { MAX_PENDING_MARKS } from '../state/engine-memory.ts';
import type { SessionModel } from '../state/session-model.ts';

/** What taking back arrived folds reads and writes: the forest's expanded set, the marks, the window shown. */
export type ArrivedFoldsTarget = Pick<SessionModel, 'lattice' | 'frozenView' | 'pendingCauses'> & {
  readonly memory: EngineMemory;
};

/**
 * docs/behaviour.md B6.7: a branch walked again after going back on it brings its entries
 * back one request at a time, and a stored fold is placed again once its last entry is back.
 * Entries of its span that an earlier request of this walk already showed raw are in the
 * window raw, and I1 keeps them so until a rewrite: the fold stands placed but not shown.
 * Counted as collapsed it would be invisible to every count of what folding can free, and
 * its span, seen as folded, would never be cut again, so a window of such spans grows to the
 * budget with nothing left to land. It is taken as what the window shows, an expanded fold,
 * with a mark to refold it: the scheduler lands it like any mark (no record is written
 * again), and the fence can land it when the window is full.
 *
 * A fold whose span arrived whole in this read is left alone (the appended entries render it
 * collapsed), and so is every fold when a rewrite is already queued (the whole window is
 * rendered again, with every placed fold collapsed). Returns whether a decision changed.
 */
export function takeBackArrivedFolds(
  target: ArrivedFoldsTarget,
  arrived: readonly PlacedFold[],
  appendedFrom: number,
): boolean {
  if (arrived.length === 0 || target.frozenView === undefined || target.pendingCauses.size > 0) return false;
  const { lattice, memory } = target;
  let changed = false;
  for (const placed of arrived) {
    const { record } = placed;
    if (placed.first >= appendedFrom || lattice.expanded.has(record.id)) continue;
    lattice.expanded.add(record.id);
    changed = true;
    if (memory.markById(record.id) !== undefined || memory.marks.length >= MAX_PENDING_MARKS) continue;
    memory.addMark({
      id: record.id,
      kind: record.kind,
      origin: 'runtime',
      firstEntryId: record.firstEntryId,
      lastEntryId: record.lastEntryId,
      cutAtRequest: memory.nextRequest,
    });
  }
  return changed;
}
