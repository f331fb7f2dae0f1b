import type { FoldRecord, LostFoldV1 } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { FoldWarning } from '../../ports/shared-types.ts';
import { FoldError } from '../fold-error.ts';
import { foldRecordProblem } from './record-shapes.ts';

/**
 * What reopening a session makes of the folds its state lists when the store no longer holds
 * all of them (a record deleted, evicted or damaged). One lost record must not lock the other
 * folds out: the session opens with every fold it can still read, and names the rest.
 *
 * The forest stays whole (docs/behaviour.md I3) and the window lossless (I2): a lost fold
 * leaves the forest, so its span shows raw again from the host's transcript; a fold that
 * nests a lost one leaves it too (its one-level source would name a child nobody can read),
 * and its other children stand on their own; children of a lost parent become top-level.
 */

/** Codes of a record that exists but cannot be read as one: damage, not an outage. */
const DAMAGED_RECORD_CODES = new Set(['STORE.HASH_MISMATCH', 'STATE.CORRUPT', 'STORE.SCHEMA_VERSION']);

/** Whether a failed record read met a damaged record (a loss) rather than a store that failed (an outage). */
export function isRecordDamage(error: unknown): error is FoldError {
  return FoldError.isInstance(error) && DAMAGED_RECORD_CODES.has(error.code);
}

export interface RestoredFolds {
  /** Readable records, in the state's order. */
  readonly records: readonly FoldRecord[];
  /** Listed folds that cannot stand, each with why. */
  readonly lost: readonly LostFoldV1[];
}

/**
 * Read every listed record. A store that cannot be reached still fails the open (an outage
 * is not a loss: the records come back with the store); a missing or damaged record is lost.
 */
export async function restoreListedFolds(
  store: FoldStore,
  sessionId: string,
  foldIds: readonly string[],
): Promise<RestoredFolds> {
  const readable = new Map<string, FoldRecord>();
  const lost = new Map<string, string>();
  for (const foldId of foldIds) {
    const outcome = await readRecord(store, sessionId, foldId);
    if (typeof outcome === 'string') lost.set(foldId, outcome);
    else readable.set(foldId, outcome);
  }
  dropNestingLost(readable, lost);
  return {
    records: foldIds.filter((foldId) => readable.has(foldId)).map((foldId) => readable.get(foldId)!),
    lost: [...lost].map(([foldId, reason]) => ({ foldId, reason })),
  };
}

async function readRecord(store: FoldStore, sessionId: string, foldId: string): Promise<FoldRecord | string> {
  let record: FoldRecord | undefined;
  try {
    record = await store.getFold(sessionId, foldId);
  } catch (error) {
    if (isRecordDamage(error)) return `its record is damaged (${error.message})`;
    throw error;
  }
  if (record === undefined) return `the ${store.name} store has no record of it`;
  // A store of its own making may not check shapes on read; the engine must not meet a malformed one.
  const problem = foldRecordProblem(record);
  return problem === undefined ? record : `its record is damaged (${problem})`;
}

/** A fold whose one-level source names a fold that is not readable cannot stand either. */
export function dropNestingLost(readable: Map<string, FoldRecord>, lost: Map<string, string>): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const record of [...readable.values()]) {
      const missing = record.parts.find((part) => part.kind === 'fold' && !readable.has(part.foldId));
      if (missing === undefined || missing.kind !== 'fold') continue;
      readable.delete(record.id);
      lost.set(record.id, `it nests fold ${missing.foldId}, which is lost`);
      changed = true;
    }
  }
}

/** Lost folds known before, then those just found, once each. */
export function mergeLostFolds(known: readonly LostFoldV1[], found: readonly LostFoldV1[]): LostFoldV1[] {
  const merged = new Map<string, LostFoldV1>();
  for (const fold of [...known, ...found]) if (!merged.has(fold.foldId)) merged.set(fold.foldId, fold);
  return [...merged.values()];
}

/** The coded warning a reopened session gives once when folds were lost since it last ran. */
export function lostFoldsWarning(sessionId: string, lost: readonly LostFoldV1[]): FoldWarning {
  const listed = lost
    .slice(0, 5)
    .map((fold) => `${fold.foldId} (${fold.reason.slice(0, 160)})`)
    .join('; ');
  const more = lost.length > 5 ? `; and ${lost.length - 5} more` : '';
  return {
    code: 'STORE.FOLDS_LOST',
    message: `pi-fold [STORE.FOLDS_LOST]: session ${sessionId} lists ${lost.length} fold(s) the store can no longer give back, so their stored bytes are lost: ${listed}${more}. Their spans show raw from the conversation; every other fold is kept and folding goes on. \`pi-fold verify\` names every break in the store.`,
    details: { sessionId, lostFolds: lost.length },
  };
}

/** The lost fold of that id, if the session lost one. */
export function lostFoldNamed(memory: { readonly lostFolds: readonly LostFoldV1[] }, foldId: string) {
  return memory.lostFolds.find((fold) => fold.foldId === foldId);
}

/** The refusal of a peek, expand or search of a fold that is lost. */
export function lostFoldRefusal(verb: string, lost: LostFoldV1): FoldError {
  return new FoldError(
    'STORE.NOT_FOUND',
    `${verb}: fold ${lost.foldId} is lost: ${lost.reason}; the store cannot give back its bytes (its span shows raw in the window)`,
    { details: { foldId: lost.foldId, lost: true } },
  );
}

/**
 * A blob a standing fold names is gone (deleted or evicted while the session runs): the
 * refusal names the fold as lost, not only the blob, so the agent knows what it cannot read.
 */
export function lostBlobRefusal(verb: string, foldId: string, entryId: string, error: FoldError): FoldError {
  return new FoldError(
    'STORE.NOT_FOUND',
    `${verb}: fold ${foldId} is lost: the store no longer holds the bytes of its entry ${entryId} (${error.message}); nothing of it is shown unverified`,
    { cause: error, details: { foldId, entryId, lost: true } },
  );
}

/** Read one entry blob of a fold, naming the fold as lost when the store no longer has it. */
export async function readFoldBlob<T>(
  verb: string,
  foldId: string,
  entryId: string,
  read: () => Promise<T>,
): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (FoldError.isInstance(error) && error.code === 'STORE.NOT_FOUND')
      throw lostBlobRefusal(verb, foldId, entryId, error);
    throw error;
  }
}
