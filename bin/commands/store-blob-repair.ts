import type { StoreAuditReport } from '../../adapters/backends/storage-shared/store-audit.ts';
import type { StoreMaintenance } from '../../adapters/backends/storage-shared/store-maintenance.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { SetAsideItem } from './session-repair.ts';

/** What mending the store's damaged blobs did. */
export interface BlobRepairReport {
  readonly restoredBlobs: readonly string[];
  readonly setAside: readonly SetAsideItem[];
}

/** A blob key as either store spells it in an audit: `blob/<sha>` or `blobs/sha256/ab/<sha>`. */
const BLOB_KEY = /(?:^|[:/])blobs?\/(?:sha256\/[0-9a-f]{2}\/)?([0-9a-f]{64})$/;

/**
 * Mend every blob the store's own audit finds damaged, whoever needs it (after every session
 * was repaired, these are the blobs no session's repair reached): put back from an intact
 * copy the store holds when there is one, else set aside (its bytes kept under quarantine/;
 * the next commit of the same bytes writes it whole again).
 */
export async function repairDamagedBlobs(
  store: FoldStore,
  maintenance: StoreMaintenance,
  audit: StoreAuditReport,
  options: { readonly dryRun: boolean },
): Promise<BlobRepairReport> {
  const restoredBlobs: string[] = [];
  const setAside: SetAsideItem[] = [];
  const damaged = new Set<string>();
  for (const problem of audit.problems) {
    const sha256 = BLOB_KEY.exec(problem.key)?.[1];
    if (sha256 !== undefined && problem.code === 'STORE.HASH_MISMATCH') damaged.add(sha256);
  }
  for (const sha256 of [...damaged].sort()) {
    const copy = await maintenance.intactCopyOf(sha256);
    const reason =
      copy === undefined
        ? 'its bytes do not match its SHA-256 and no intact copy is held'
        : 'its bytes do not match its SHA-256';
    const where = options.dryRun ? undefined : await maintenance.setAside({ kind: 'blob', sha256 }, reason);
    setAside.push({ what: `blob/${sha256}`, reason, ...(where === undefined ? {} : { where }) });
    if (copy === undefined) continue;
    if (!options.dryRun) await store.putBlob(copy);
    restoredBlobs.push(sha256);
  }
  return { restoredBlobs, setAside };
}
