import { assertBlobMatches } from '../storage-shared/blob-checks.ts';
import { auditItem, emptyAuditReport, type StoreAuditReport } from '../storage-shared/store-audit.ts';
import type { FoldEnvelope, StateEnvelope } from '../storage-shared/stored-records.ts';
import { unwrapFold, unwrapState } from '../storage-shared/stored-records.ts';
import type { KeyvConnection } from './keyv-connection.ts';
import { decodeStoredBytes, storedKind } from './keyv-records.ts';

/**
 * Walk every value of a Keyv-backed store's namespace, re-hash blobs, artifacts and records,
 * and report each problem by key. Reads only.
 */
export async function auditKeyvStore(connection: KeyvConnection): Promise<StoreAuditReport> {
  const report = emptyAuditReport();
  const storeName = connection.name;
  for await (const [key, value] of connection.entries('walk')) {
    const kind = storedKind(value);
    if (kind === 'blob' || kind === 'evidence') {
      const ok = await auditItem(report, key, async () => {
        const decoded = decodeStoredBytes(value);
        if (decoded === undefined || !key.endsWith(decoded.sha256))
          throw Object.assign(new Error(`${key} does not hold the ${kind} its key names`), {
            code: 'STORE.HASH_MISMATCH',
          });
        assertBlobMatches(decoded.bytes, decoded.sha256, storeName, key);
      });
      if (ok) report.checked[kind === 'blob' ? 'blobs' : 'evidence'] += 1;
    } else if (kind === 'fold') {
      const envelope = value as FoldEnvelope;
      if (
        await auditItem(report, key, async () =>
          unwrapFold(value, envelope.sessionId, String(envelope.body?.id), { storeName, key }),
        )
      )
        report.checked.folds += 1;
    } else if (kind === 'state') {
      const envelope = value as StateEnvelope;
      if (await auditItem(report, key, async () => unwrapState(value, envelope.sessionId, { storeName, key })))
        report.checked.states += 1;
    } else if (kind !== 'evidence-usage' && kind !== 'request-log' && kind !== 'request-log-head') {
      report.problems.push({
        key,
        code: 'STORE.UNKNOWN_ENTRY',
        message: `${key} is not a pi-fold value (kind ${String(kind)})`,
      });
    }
  }
  return report;
}
