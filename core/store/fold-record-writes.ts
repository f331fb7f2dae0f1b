import type { FoldPart, FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { FoldError } from '../fold-error.ts';
import { alternativeFoldId } from '../folds/fold-ids.ts';
import { forEachBounded } from '../util/bounded-parallel.ts';
import { stableStringify } from '../util/hashing.ts';

/**
 * Writing a commit's fold records when an id may already be taken. Records are immutable and
 * an id derives from the span, so a session can meet a record of its own id that is not the
 * one it is landing: one a repair left out, one a lost state still had, one damaged in place.
 * That is a collision, not a store failure: the new record takes the next alternative id
 * (the same every time for the same store, docs/behaviour.md I5), the old record stays as
 * it is, and the commit lands. A store that truly fails still fails the commit.
 */

/** Alternatives tried for one record before the collision is given up as a failure. */
const MAX_ALTERNATIVES = 8;

/**
 * Write records level by level (children before the parents that name them), side by side
 * within a level. Returns each planned id's record as written: renamed where its id was taken,
 * with parents naming their renamed children.
 */
export async function writeFoldRecords(
  store: FoldStore,
  sessionId: string,
  levels: readonly (readonly FoldRecord[])[],
  inFlight: number,
): Promise<Map<string, FoldRecord>> {
  const written = new Map<string, FoldRecord>();
  for (const level of levels) {
    await forEachBounded([...level], inFlight, async (planned) => {
      const record = withRenamedChildren(planned, written);
      written.set(planned.id, await putResolvingCollision(store, sessionId, record));
    });
  }
  return written;
}

function withRenamedChildren(record: FoldRecord, written: ReadonlyMap<string, FoldRecord>): FoldRecord {
  let renamed = false;
  const parts = record.parts.map((part): FoldPart => {
    if (part.kind !== 'fold') return part;
    const child = written.get(part.foldId);
    if (child === undefined || child.id === part.foldId) return part;
    renamed = true;
    return { kind: 'fold', foldId: child.id };
  });
  return renamed ? { ...record, parts } : record;
}

async function putResolvingCollision(store: FoldStore, sessionId: string, planned: FoldRecord): Promise<FoldRecord> {
  let record = planned;
  for (let attempt = 1; ; attempt += 1) {
    try {
      await store.putFold(sessionId, record);
      return record;
    } catch (error) {
      if (!(await isCollision(store, sessionId, record)) || attempt > MAX_ALTERNATIVES) throw error;
    }
    record = { ...record, id: alternativeFoldId(planned.id, attempt) };
  }
}

/**
 * Is a refused write a collision: the store holds another record (or a damaged one) under
 * this id? Asked of the store, so any store, even one of a host's making, is told apart from
 * a store that cannot write: nothing under the id, or a read that fails, is no collision.
 */
async function isCollision(store: FoldStore, sessionId: string, record: FoldRecord): Promise<boolean> {
  try {
    const existing = await store.getFold(sessionId, record.id);
    return existing !== undefined && stableStringify(existing) !== stableStringify(record);
  } catch (error) {
    return FoldError.isInstance(error) && DAMAGED_RECORD_CODES.has(error.code);
  }
}

const DAMAGED_RECORD_CODES = new Set(['STORE.HASH_MISMATCH', 'STATE.CORRUPT', 'STORE.SCHEMA_VERSION']);

/**
 * Put the records as written into the plan, so everything after the landing (the forest,
 * the receipt, telemetry) names the id each fold was stored under. The plan is this
 * request's own value and is read by nothing else.
 */
export function adoptWrittenRecords(
  plan: { readonly folds: readonly { readonly record: FoldRecord; readonly collapseOnly: boolean }[] },
  written: ReadonlyMap<string, FoldRecord>,
): void {
  for (const fold of plan.folds) {
    const record = fold.collapseOnly ? undefined : written.get(fold.record.id);
    if (record !== undefined && record !== fold.record) (fold as { record: FoldRecord }).record = record;
  }
}
