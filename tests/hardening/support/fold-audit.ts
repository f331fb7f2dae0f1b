import { FoldError } from '../../../core/fold-error.ts';
import { readFoldSource } from '../../../core/store/fold-source.ts';
import type { FoldRecord } from '../../../ports/fold-records.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';

/** What auditing one session's committed folds against its transcript found. */
export interface FoldAudit {
  /** Folds the state lists (every one checked). */
  readonly folds: number;
  /** Covered entries compared byte for byte with the transcript. */
  readonly entriesCompared: number;
  /** Anything lost, torn or different; must stay empty. */
  readonly losses: string[];
}

/**
 * Check every fold a session's stored state lists: its record exists, its whole source reads
 * back verified (every blob present, every SHA-256 right) and each covered entry's bytes equal
 * the transcript's own bytes for that entry id. `transcriptBytes` maps entry ids to the
 * canonical bytes the host holds (the original the fold must give back).
 */
export async function auditSessionFolds(
  store: FoldStore,
  sessionId: string,
  transcriptBytes: ReadonlyMap<string, string>,
): Promise<FoldAudit> {
  const losses: string[] = [];
  const state = await store.loadState(sessionId);
  if (state === undefined) return { folds: 0, entriesCompared: 0, losses };
  const records = new Map<string, FoldRecord>();
  for (const foldId of state.foldIds) {
    const record = await store.getFold(sessionId, foldId);
    if (record === undefined) losses.push(`state lists fold ${foldId} but the store has no record`);
    else records.set(foldId, record);
  }
  let entriesCompared = 0;
  for (const foldId of records.keys()) {
    try {
      const source = await readFoldSource(store, (id) => records.get(id), foldId);
      for (const entry of source) {
        const original = transcriptBytes.get(entry.entryId);
        if (original === undefined)
          losses.push(`fold ${foldId} covers entry ${entry.entryId}, which the transcript does not hold`);
        else if (original !== entry.bytes)
          losses.push(`fold ${foldId} gives back different bytes for entry ${entry.entryId}`);
        else entriesCompared += 1;
      }
    } catch (error) {
      losses.push(`fold ${foldId} cannot be expanded: ${FoldError.isInstance(error) ? error.message : String(error)}`);
    }
  }
  return { folds: records.size, entriesCompared, losses };
}
