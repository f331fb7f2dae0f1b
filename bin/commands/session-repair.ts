import type {
  MendedItem,
  RequestLogMend,
  StoreMaintenance,
} from '../../adapters/backends/storage-shared/store-maintenance.ts';
import { rebuildSessionState, type SessionRepairReport } from '../../application/recovery/rebuild-session-state.ts';
import { FoldError } from '../../core/fold-error.ts';
import { isRecordDamage } from '../../core/store/restore-folds.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';

/** One thing a repair set aside (its exact bytes kept under `quarantine/`), or would on a dry run. */
export type SetAsideItem = MendedItem;

/** Everything one session's repair found and did. */
export interface FullRepairReport extends SessionRepairReport {
  /** Blobs whose bytes were damaged or gone and were put back from an intact copy the store held. */
  readonly restoredBlobs: readonly string[];
  readonly setAside: readonly SetAsideItem[];
  readonly requestLog: RequestLogMend | undefined;
  /** Whether anything at all was wrong. */
  readonly repaired: boolean;
}

/**
 * Mend one session, in an order that never costs an intact byte: first put back damaged or
 * missing blobs of its records from intact copies elsewhere in the store (so their folds
 * verify again), keep a copy of a damaged state, rebuild the state from what verifies
 * (application/recovery), then set aside what cannot be read — damaged fold records,
 * whether the state lists them or not, and damaged blobs nothing could restore — and
 * mend the request log. Other sessions are never read or touched beyond shared blobs.
 */
export async function repairSession(
  store: FoldStore,
  maintenance: StoreMaintenance,
  sessionId: string,
  options: { readonly dryRun: boolean },
): Promise<FullRepairReport> {
  const { dryRun } = options;
  const foldIds = await maintenance.foldIdsOf(sessionId);
  const setAside: SetAsideItem[] = [];
  const aside = async (
    item: Parameters<StoreMaintenance['setAside']>[0],
    what: string,
    reason: string,
    keep = false,
  ) => {
    if (dryRun) setAside.push({ what, reason });
    else {
      const where = await maintenance.setAside(item, reason, { keepOriginal: keep });
      if (where !== undefined) setAside.push({ what, reason, where });
    }
  };
  const blobs = await checkRecordBlobs(store, sessionId, foldIds);
  const restoredBlobs: string[] = [];
  const unrestorable: string[] = [];
  for (const [sha256, code] of blobs) {
    const copy = await maintenance.intactCopyOf(sha256);
    if (copy === undefined) {
      if (code === 'STORE.HASH_MISMATCH') unrestorable.push(sha256);
      continue;
    }
    if (code === 'STORE.HASH_MISMATCH')
      await aside({ kind: 'blob', sha256 }, `blob/${sha256}`, 'its bytes do not match its SHA-256');
    if (!dryRun) await store.putBlob(copy);
    restoredBlobs.push(sha256);
  }
  const stateDamage = await damageOf(() => store.loadState(sessionId));
  if (stateDamage !== undefined && stateDamage.code !== 'STORE.SCHEMA_VERSION')
    await aside({ kind: 'state', sessionId }, `session/${sessionId}/state`, stateDamage.message, true);
  const rebuilt = await rebuildSessionState(store, sessionId, foldIds, { dryRun });
  for (const foldId of foldIds) {
    const damage = await damageOf(() => store.getFold(sessionId, foldId));
    // A record of a newer pi-fold is intact: it is left for that version to read.
    if (damage !== undefined && damage.code !== 'STORE.SCHEMA_VERSION')
      await aside({ kind: 'fold', sessionId, foldId }, `session/${sessionId}/fold/${foldId}`, damage.message);
  }
  // Unreadable anyway; set aside, a later commit of the same bytes writes the blob afresh.
  for (const sha256 of unrestorable)
    await aside(
      { kind: 'blob', sha256 },
      `blob/${sha256}`,
      'its bytes do not match its SHA-256 and no intact copy is held',
    );
  const requestLog = await maintenance.mendRequestLog(sessionId, { dryRun });
  setAside.push(...(await maintenance.mendEvidence(sessionId, { dryRun })));
  return {
    ...rebuilt,
    restoredBlobs,
    setAside,
    requestLog,
    repaired:
      rebuilt.stateProblem !== undefined || restoredBlobs.length > 0 || setAside.length > 0 || requestLog !== undefined,
  };
}

/** Blobs the session's readable records name that are damaged or gone, with the code of the refused read. */
async function checkRecordBlobs(
  store: FoldStore,
  sessionId: string,
  foldIds: readonly string[],
): Promise<Map<string, string>> {
  const broken = new Map<string, string>();
  const checked = new Set<string>();
  for (const foldId of foldIds) {
    const record = await store.getFold(sessionId, foldId).catch((error: unknown) => {
      if (isRecordDamage(error)) return undefined;
      throw error;
    });
    for (const part of record?.parts ?? []) {
      if (part.kind !== 'entry' || checked.has(part.sha256)) continue;
      checked.add(part.sha256);
      const damage = await damageOf(() => store.getBlob(part.sha256), ['STORE.NOT_FOUND']);
      if (damage !== undefined) broken.set(part.sha256, damage.code);
    }
  }
  return broken;
}

/** The damage a read meets (`undefined` when it reads); a store that fails is not damage, and throws. */
async function damageOf(
  read: () => Promise<unknown>,
  alsoDamage: readonly string[] = [],
): Promise<FoldError | undefined> {
  try {
    await read();
    return undefined;
  } catch (error) {
    if (isRecordDamage(error) || (FoldError.isInstance(error) && alsoDamage.includes(error.code))) return error;
    throw error;
  }
}
