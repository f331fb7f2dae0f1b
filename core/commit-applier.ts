import type { FoldRecord } from '../ports/fold-records.ts';
import type { CommitPlan } from './commit-planner.ts';
import { FoldError } from './fold-error.ts';
import type { SessionState } from './session-state.ts';
import { verifiedBlobText } from './verified-reads.ts';
import { forEachBounded } from './bounded-parallel.ts';

/**
 * Store calls of one commit under way at once. The blobs of a commit are independent, so they
 * are written (and read back) side by side; the bound keeps a large commit from opening
 * hundreds of files or connections at once.
 */
const COMMIT_WRITES_IN_FLIGHT = 8;

/** What landing writes: the store, then the forest and the decisions. */
export type LandingTarget = Pick<SessionState, 'sessionId' | 'foldStore' | 'index' | 'lattice' | 'memory' | 'spills'>;

/**
 * Land a planned commit: write every source byte and record first, read the new blobs back
 * verified, and only then change the window's structure. A store failure leaves the
 * lattice and marks exactly as they were (no fold is ever shown that cannot be expanded).
 */
export async function applyCommitPlan(session: LandingTarget, plan: CommitPlan): Promise<void> {
  const store = session.foldStore;
  const { index } = session;
  const positions = new Map<string, number>();
  for (const fold of plan.folds) {
    if (fold.collapseOnly) continue;
    for (let position = fold.first; position <= fold.last; position += 1) {
      const sha = index.shas[position]!;
      if (!positions.has(sha)) positions.set(sha, position);
    }
  }
  const blobs = [...positions];
  await forEachBounded(blobs, COMMIT_WRITES_IN_FLIGHT, async ([sha, position]) => {
    const entry = index.entries[position]!;
    const stored = await store.putBlob(entry.bytes);
    if (stored !== sha) {
      throw new FoldError('STORE.WRITE_FAILED', `${store.name} store filed entry ${entry.id} under ${stored}, expected ${sha}`, { details: { entryId: entry.id, sha256: sha } });
    }
  });
  await forEachBounded(blobs, COMMIT_WRITES_IN_FLIGHT, async ([sha]) => {
    await verifiedBlobText(store, sha);
  });
  // A record is written only once the artifacts of the spilled entries it covers are durable
  // (docs/behaviour.md B6.2): nothing stored may name what a crash could still lose.
  await session.spills.evidence.durable(spilledArtifacts(session, plan));
  // Records go one by one in plan order: a fold is written after the child folds it names.
  for (const fold of plan.folds) {
    if (!fold.collapseOnly) await store.putFold(session.sessionId, fold.record);
  }
  landInMemory(session, plan);
}

/** SHA-256 of every artifact behind the spilled entries the plan's new folds cover. */
function spilledArtifacts(session: LandingTarget, plan: CommitPlan): Set<string> {
  const artifacts = new Set<string>();
  for (const fold of plan.folds) {
    if (fold.collapseOnly) continue;
    for (let position = fold.first; position <= fold.last; position += 1) {
      for (const part of session.spills.planFor(session.index.entries[position]!)?.parts ?? []) artifacts.add(part.pointer.sha256);
    }
  }
  return artifacts;
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
