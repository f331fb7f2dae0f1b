import type { FoldRecord } from '../ports/fold-records.ts';
import type { CommitPlan } from './commit-planner.ts';
import { FoldError } from './fold-error.ts';
import type { SessionState } from './session-state.ts';
import { verifiedBlobText } from './verified-reads.ts';

/** What landing writes: the store, then the forest and the decisions. */
export type LandingTarget = Pick<SessionState, 'sessionId' | 'foldStore' | 'index' | 'lattice' | 'memory'>;

/**
 * Land a planned commit: write every source byte and record first, read the new blobs back
 * verified, and only then change the window's structure. A store failure leaves the
 * lattice and marks exactly as they were (no fold is ever shown that cannot be expanded).
 */
export async function applyCommitPlan(session: LandingTarget, plan: CommitPlan): Promise<void> {
  const store = session.foldStore;
  const { index } = session;
  const written = new Set<string>();
  for (const fold of plan.folds) {
    if (fold.collapseOnly) continue;
    for (let position = fold.first; position <= fold.last; position += 1) {
      const sha = index.shas[position]!;
      if (written.has(sha)) continue;
      const stored = await store.putBlob(index.entries[position]!.bytes);
      if (stored !== sha) {
        throw new FoldError('STORE.WRITE_FAILED', `${store.name} store filed entry ${index.entries[position]!.id} under ${stored}, expected ${sha}`, { details: { entryId: index.entries[position]!.id, sha256: sha } });
      }
      written.add(sha);
    }
  }
  for (const sha of written) await verifiedBlobText(store, sha);
  for (const fold of plan.folds) {
    if (!fold.collapseOnly) await store.putFold(session.sessionId, fold.record);
  }
  landInMemory(session, plan);
}

function landInMemory(session: LandingTarget, plan: CommitPlan): void {
  const { memory, lattice } = session;
  memory.epoch += 1;
  const landed = new Set<string>();
  for (const fold of plan.folds) {
    landed.add(fold.mark.id);
    if (fold.collapseOnly) {
      lattice.expanded.delete(fold.record.id);
      continue;
    }
    const record: FoldRecord = fold.record;
    lattice.add(record);
    memory.foldIds.push(record.id);
  }
  memory.marks = memory.marks.filter((mark) => !landed.has(mark.id));
}
