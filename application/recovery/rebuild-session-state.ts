import { EngineMemory } from '../../core/engine-memory.ts';
import { FoldError } from '../../core/fold-error.ts';
import { verifiedBlob } from '../../core/verified-reads.ts';
import type { FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';

/** What a repair of one session found and did. */
export interface SessionRepairReport {
  readonly sessionId: string;
  /** Why the stored state could not be read; `undefined` when it was intact (nothing to repair). */
  readonly stateProblem: string | undefined;
  /** Folds whose record and every blob read back verified: the rebuilt state lists them all. */
  readonly recovered: readonly string[];
  /** Folds left out, each with the reason (a damaged record or blob, or a nested fold that was). */
  readonly unrecoverable: readonly { readonly foldId: string; readonly reason: string }[];
  /** True when the rebuilt state was saved (false on a dry run or when the state was intact). */
  readonly written: boolean;
}

/**
 * Rebuild a session's engine state from the fold records and blobs the store can verify,
 * when the state itself cannot be read (torn, tampered, unknown version). Every fold whose
 * record and bytes verify is kept, standing and collapsed, so nothing verified is lost; what
 * the state alone held (pending marks, pins, holds, notices, calibration, counters) is gone
 * and re-forms as the session goes on. An intact state is never touched.
 */
export async function rebuildSessionState(
  store: FoldStore,
  sessionId: string,
  foldIds: readonly string[],
  options: { readonly dryRun?: boolean } = {},
): Promise<SessionRepairReport> {
  const stateProblem = await stateReadProblem(store, sessionId);
  if (stateProblem === undefined) return { sessionId, stateProblem, recovered: [], unrecoverable: [], written: false };
  const readable = new Map<string, FoldRecord>();
  const unrecoverable = new Map<string, string>();
  for (const foldId of [...new Set(foldIds)].sort()) {
    const problem = await recordProblem(store, sessionId, foldId, readable);
    if (problem !== undefined) unrecoverable.set(foldId, problem);
  }
  dropNestingBroken(readable, unrecoverable);
  const recovered = [...readable.values()].sort(
    (left, right) => left.epoch - right.epoch || (left.id < right.id ? -1 : 1),
  );
  const memory = new EngineMemory(sessionId);
  memory.foldIds = recovered.map((record) => record.id);
  memory.epoch = recovered.reduce((highest, record) => Math.max(highest, record.epoch), 0);
  if (options.dryRun !== true) await store.saveState(sessionId, { ...memory.snapshot([], []), revision: 1 });
  return {
    sessionId,
    stateProblem,
    recovered: memory.foldIds,
    unrecoverable: [...unrecoverable]
      .map(([foldId, reason]) => ({ foldId, reason }))
      .sort((left, right) => (left.foldId < right.foldId ? -1 : 1)),
    written: options.dryRun !== true,
  };
}

async function stateReadProblem(store: FoldStore, sessionId: string): Promise<string | undefined> {
  try {
    await store.loadState(sessionId);
    return undefined;
  } catch (error) {
    // Only damage is repaired; a store that cannot be reached is not a damaged state.
    if (
      FoldError.isInstance(error) &&
      ['STORE.SCHEMA_VERSION', 'STORE.HASH_MISMATCH', 'STATE.CORRUPT'].includes(error.code)
    )
      return error.message;
    throw error;
  }
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

/** A fold nesting one that is not recovered cannot be shown or expanded either. */
function dropNestingBroken(readable: Map<string, FoldRecord>, unrecoverable: Map<string, string>): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const record of [...readable.values()]) {
      const missing = record.parts.find((part) => part.kind === 'fold' && !readable.has(part.foldId));
      if (missing === undefined || missing.kind !== 'fold') continue;
      readable.delete(record.id);
      unrecoverable.set(record.id, `it nests fold ${missing.foldId}, which is not recovered`);
      changed = true;
    }
  }
}
