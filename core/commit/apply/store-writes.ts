import type { FoldRecord } from '../../../ports/fold-records.ts';
import type { SpillBook } from '../../spill/spill-book.ts';
import type { SessionModel } from '../../state/session-model.ts';
import type { SessionPorts } from '../../state/session-ports.ts';
import { adoptWrittenRecords, writeFoldRecords } from '../../store/fold-record-writes.ts';
import { forEachBounded } from '../../util/bounded-parallel.ts';
import type { CommitPlan } from '../plan/planner.ts';
import { type BlobPrewrites, type BlobToStore, storeBlobVerified } from './blob-prewrites.ts';

/**
 * Store calls of one commit under way at once. The blobs of a commit are independent, so they
 * are written (and read back) side by side; the bound keeps a large commit from opening
 * hundreds of files or connections at once.
 */
const COMMIT_WRITES_IN_FLIGHT = 8;

/** What landing writes: the store, then the forest and the decisions. */
export interface LandingTarget {
  readonly ports: Pick<SessionPorts, 'sessionId' | 'foldStore'>;
  readonly model: Pick<SessionModel, 'index' | 'lattice' | 'memory' | 'lastContext'>;
  readonly services: { readonly spills: SpillBook; readonly prewrites: BlobPrewrites };
}

/**
 * Land a planned commit: write every source byte and record first, read the new blobs back
 * verified, and only then change the window's structure. A store failure leaves the
 * lattice and marks exactly as they were (no fold is ever shown that cannot be expanded).
 * Blobs already written ahead for a pending mark (core/commit/apply/blob-prewrites.ts) are not written
 * again: only the rest are, side by side.
 */
export async function applyCommitPlan(session: LandingTarget, plan: CommitPlan): Promise<void> {
  const { ports, model, services } = session;
  const store = ports.foldStore;
  const blobs = new Map<string, BlobToStore>();
  for (const fold of plan.folds) {
    if (!fold.collapseOnly) addSpanBlobs(model.index, fold.first, fold.last, blobs);
  }
  const ready = await services.prewrites.readyAmong(blobs.keys(), model.lastContext.requestTime);
  const toWrite = [...blobs.values()].filter((blob) => !ready.has(blob.sha256));
  await forEachBounded(toWrite, COMMIT_WRITES_IN_FLIGHT, (blob) => storeBlobVerified(store, blob));
  // A record is written only once the artifacts of the spilled entries it covers are durable
  // (docs/behaviour.md B6.2): nothing stored may name what a crash could still lose.
  await services.spills.evidence.durable(spilledArtifacts(session, plan));
  // A fold is written after the child folds it names; folds of one level go side by side.
  const written = await writeFoldRecords(store, ports.sessionId, recordLevels(plan), COMMIT_WRITES_IN_FLIGHT);
  adoptWrittenRecords(plan, written);
  landInMemory(model, plan);
}

/**
 * The plan's new records by level: a record is one level above the highest child fold it
 * names from the same plan, so every record of a level names only records already written
 * (children in earlier levels, or folds committed before).
 */
export function recordLevels(plan: CommitPlan): FoldRecord[][] {
  const records = new Map<string, FoldRecord>();
  for (const fold of plan.folds) if (!fold.collapseOnly) records.set(fold.record.id, fold.record);
  const levelOf = new Map<string, number>();
  const level = (record: FoldRecord): number => {
    const known = levelOf.get(record.id);
    if (known !== undefined) return known;
    let own = 0;
    for (const part of record.parts) {
      const child = part.kind === 'fold' ? records.get(part.foldId) : undefined;
      if (child !== undefined) own = Math.max(own, level(child) + 1);
    }
    levelOf.set(record.id, own);
    return own;
  };
  const levels: FoldRecord[][] = [];
  for (const record of records.values()) (levels[level(record)] ??= []).push(record);
  return levels;
}

/**
 * Start writing, off the request path, the blobs of every pending mark (their spans are
 * known long before the cost scheduler lands them). Returns at once.
 */
export function prewritePendingMarks(session: LandingTarget): void {
  // Collected on the next turn, from the marks and branch as they stand then: a mark landed
  // meanwhile is gone from the marks, one whose span left the branch has no positions.
  session.services.prewrites.startLater(
    session.ports.foldStore,
    () => pendingMarkBlobs(session),
    session.model.lastContext.requestTime,
  );
}

/** The blobs of the marks not handed over before: a pure append costs what it adds (docs/behaviour.md B3.6). */
function pendingMarkBlobs(session: LandingTarget): Iterable<BlobToStore> {
  const blobs = new Map<string, BlobToStore>();
  const { index, memory } = session.model;
  for (const mark of session.services.prewrites.marksNotSeen(memory.marks)) {
    const first = index.positionOf(mark.firstEntryId);
    const last = index.positionOf(mark.lastEntryId);
    if (first !== undefined && last !== undefined) addSpanBlobs(index, first, last, blobs);
  }
  return blobs.values();
}

/** The blob of each entry from `first` to `last`, once per SHA-256. */
function addSpanBlobs(
  index: LandingTarget['model']['index'],
  first: number,
  last: number,
  blobs: Map<string, BlobToStore>,
): void {
  for (let position = first; position <= last; position += 1) {
    const sha256 = index.shas[position]!;
    if (blobs.has(sha256)) continue;
    const entry = index.entries[position]!;
    blobs.set(sha256, { sha256, bytes: entry.bytes, entryId: entry.id });
  }
}

/** SHA-256 of every artifact behind the spilled entries the plan's new folds cover. */
function spilledArtifacts(session: LandingTarget, plan: CommitPlan): Set<string> {
  const artifacts = new Set<string>();
  for (const fold of plan.folds) {
    if (fold.collapseOnly) continue;
    for (let position = fold.first; position <= fold.last; position += 1) {
      for (const part of session.services.spills.planFor(session.model.index.entries[position]!)?.parts ?? [])
        artifacts.add(part.pointer.sha256);
    }
  }
  return artifacts;
}

function landInMemory(model: LandingTarget['model'], plan: CommitPlan): void {
  const { memory, lattice } = model;
  memory.openEpoch();
  const landed = new Set<string>();
  for (const fold of plan.folds) {
    landed.add(fold.mark.id);
    if (fold.collapseOnly) {
      lattice.expanded.delete(fold.record.id);
      continue;
    }
    const record: FoldRecord = fold.record;
    lattice.add(record);
    memory.listFold(record.id);
  }
  memory.dropMarks(landed);
}
