import { FoldError } from '../../core/fold-error.ts';
import { EngineMemory } from '../../core/state/engine-memory.ts';
import { foldRecordProblem } from '../../core/store/record-shapes.ts';
import { dropNestingLost, mergeLostFolds } from '../../core/store/restore-folds.ts';
import { verifiedBlob } from '../../core/store/verified-reads.ts';
import type { EngineState, FoldRecord, LostFoldV1 } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { landedCommits } from './audit-session-graphs.ts';
import { consistentForest } from './consistent-forest.ts';

/** What a repair of one session found and did. */
export interface SessionRepairReport {
  readonly sessionId: string;
  /**
   * What was wrong: the state could not be read, was lost while its folds were kept, or lists
   * folds the store cannot give back. `undefined` when nothing was (nothing to repair).
   */
  readonly stateProblem: string | undefined;
  /** Whether the stored state itself read back intact (then only the folds it lists were repaired). */
  readonly stateIntact: boolean;
  /** Folds whose record and every blob read back verified: the rebuilt state lists them all. */
  readonly recovered: readonly string[];
  /** Folds left out, each with the reason (a damaged record or blob, or a nested fold that was). */
  readonly unrecoverable: readonly { readonly foldId: string; readonly reason: string }[];
  /** True when the rebuilt state was saved (false on a dry run or when nothing was wrong). */
  readonly written: boolean;
}

/**
 * Rebuild a session's engine state from what the store can verify. Three cases:
 * - the state cannot be read (torn, tampered, unknown version), or it is gone while fold
 *   records remain: a new state lists every fold whose record and bytes verify (a set that
 *   forms a forest), standing and collapsed; what only the state held (pending marks, pins,
 *   holds, notices, calibration, counters) re-forms as the session goes on;
 * - the state reads back but lists folds whose record or bytes are gone or damaged: it is
 *   kept as it is, less those folds;
 * and in both, the folds that cannot be given back are named in the state (`lostFolds`), so
 * the session says what it lost and `peek` refuses them by name. A sound state is never touched.
 */
export async function rebuildSessionState(
  store: FoldStore,
  sessionId: string,
  foldIds: readonly string[],
  options: { readonly dryRun?: boolean } = {},
): Promise<SessionRepairReport> {
  const read = await readState(store, sessionId);
  if (read.state !== undefined) return repairListedFolds(store, read.state, options);
  if (read.problem === undefined && foldIds.length === 0) return recordWholeLoss(store, sessionId, options);
  const stateProblem = read.problem ?? 'the session has fold records but its state is gone';
  const { readable, unrecoverable } = await verifyFolds(store, sessionId, foldIds);
  const forest = consistentForest([...readable.values()]);
  const recovered = forest.kept.sort((left, right) => left.epoch - right.epoch || (left.id < right.id ? -1 : 1));
  const memory = EngineMemory.rebuilt(sessionId, {
    foldIds: recovered.map((record) => record.id),
    epoch: recovered.reduce((highest, record) => Math.max(highest, record.epoch), 0),
    lostFolds: [...unrecoverable].map(([foldId, reason]) => ({ foldId, reason })),
  });
  for (const [foldId, reason] of forest.left) unrecoverable.set(foldId, reason);
  if (options.dryRun !== true) await store.saveState(sessionId, { ...memory.snapshot([], []), revision: 1 });
  return {
    sessionId,
    stateProblem,
    stateIntact: false,
    recovered: memory.foldIds,
    unrecoverable: sortedReasons(unrecoverable),
    written: options.dryRun !== true,
  };
}

/**
 * No state and no record, though the request log shows commits that landed folds: every key
 * of the session but its log was evicted or deleted. Nothing can be brought back; a fresh
 * state records that the loss was seen, so the session is what `verify` then finds it to be.
 */
async function recordWholeLoss(
  store: FoldStore,
  sessionId: string,
  options: { readonly dryRun?: boolean },
): Promise<SessionRepairReport> {
  const commits = await landedCommits(store, sessionId);
  if (commits === 0)
    return { sessionId, stateProblem: undefined, stateIntact: true, recovered: [], unrecoverable: [], written: false };
  if (options.dryRun !== true)
    await store.saveState(sessionId, { ...new EngineMemory(sessionId).snapshot([], []), revision: 1 });
  return {
    sessionId,
    stateProblem: `its request log records ${commits} commit(s) that landed folds, but neither its state nor any fold record is left: those folds are lost (their spans show raw)`,
    stateIntact: false,
    recovered: [],
    unrecoverable: [],
    written: options.dryRun !== true,
  };
}

/** An intact state that lists folds the store cannot give back keeps everything else it holds. */
async function repairListedFolds(
  store: FoldStore,
  state: EngineState,
  options: { readonly dryRun?: boolean },
): Promise<SessionRepairReport> {
  const { sessionId } = state;
  const { readable, unrecoverable } = await verifyFolds(store, sessionId, state.foldIds);
  const recovered = state.foldIds.filter((foldId) => readable.has(foldId));
  if (unrecoverable.size === 0)
    return { sessionId, stateProblem: undefined, stateIntact: true, recovered: [], unrecoverable: [], written: false };
  const lost: LostFoldV1[] = [...unrecoverable].map(([foldId, reason]) => ({ foldId, reason }));
  const repaired: EngineState = {
    ...state,
    revision: state.revision + 1,
    foldIds: recovered,
    expanded: state.expanded.filter((foldId) => readable.has(foldId)),
    lostFolds: mergeLostFolds(state.lostFolds ?? [], lost),
  };
  if (options.dryRun !== true) await store.saveState(sessionId, repaired);
  return {
    sessionId,
    stateProblem: `its state lists ${unrecoverable.size} fold(s) the store cannot give back`,
    stateIntact: true,
    recovered,
    unrecoverable: sortedReasons(unrecoverable),
    written: options.dryRun !== true,
  };
}

async function readState(
  store: FoldStore,
  sessionId: string,
): Promise<{ state?: EngineState; problem?: string | undefined }> {
  try {
    return { state: await store.loadState(sessionId) };
  } catch (error) {
    // Only damage is repaired; a store that cannot be reached is not a damaged state.
    if (
      FoldError.isInstance(error) &&
      ['STORE.SCHEMA_VERSION', 'STORE.HASH_MISMATCH', 'STATE.CORRUPT'].includes(error.code)
    )
      return { problem: `the state could not be read (${error.message})` };
    throw error;
  }
}

/** Read and verify each fold; a fold nesting one that is not verified cannot stand either. */
async function verifyFolds(store: FoldStore, sessionId: string, foldIds: readonly string[]) {
  const readable = new Map<string, FoldRecord>();
  const unrecoverable = new Map<string, string>();
  for (const foldId of [...new Set(foldIds)].sort()) {
    const problem = await recordProblem(store, sessionId, foldId, readable);
    if (problem !== undefined) unrecoverable.set(foldId, problem);
  }
  dropNestingLost(readable, unrecoverable);
  return { readable, unrecoverable };
}

/** Read one record and verify every blob it names directly; a reason when it fails. */
async function recordProblem(
  store: FoldStore,
  sessionId: string,
  foldId: string,
  readable: Map<string, FoldRecord>,
): Promise<string | undefined> {
  let record: FoldRecord | undefined;
  try {
    record = await store.getFold(sessionId, foldId);
  } catch (error) {
    return `its record cannot be read: ${(error as Error).message}`;
  }
  if (record === undefined) return 'its record is missing';
  const shapeProblem = foldRecordProblem(record);
  if (shapeProblem !== undefined) return `its record is not well formed (${shapeProblem})`;
  for (const part of record.parts) {
    if (part.kind !== 'entry') continue;
    try {
      await verifiedBlob(store, part.sha256);
    } catch (error) {
      return `entry ${part.entryId} (blob ${part.sha256}) cannot be read back verified: ${(error as Error).message}`;
    }
  }
  readable.set(foldId, record);
  return undefined;
}

function sortedReasons(reasons: ReadonlyMap<string, string>): { foldId: string; reason: string }[] {
  return [...reasons]
    .map(([foldId, reason]) => ({ foldId, reason }))
    .sort((left, right) => (left.foldId < right.foldId ? -1 : 1));
}
