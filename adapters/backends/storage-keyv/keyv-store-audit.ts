import { assertBlobMatches } from '../storage-shared/blob-checks.ts';
import { checkRequestLogRow } from '../storage-shared/request-log-rows.ts';
import { auditItem, emptyAuditReport, type StoreAuditReport } from '../storage-shared/store-audit.ts';
import { unwrapFold, unwrapState } from '../storage-shared/stored-records.ts';
import type { KeyvConnection } from './keyv-connection.ts';
import { QUARANTINED_KIND } from './keyv-quarantine.ts';
import { decodeStoredBytes, storedKind } from './keyv-records.ts';
import type { StoredRequestLogChunk } from './keyv-request-log.ts';
import { foldKeyParts, isUnreadableRow, sessionKeyParts, unreadableRowError } from './keyv-unreadable-rows.ts';

/**
 * Walk every value of a Keyv-backed store's namespace, re-hash blobs, artifacts and records,
 * check request-log rows, and report each problem by key. A row that cannot be decoded at
 * all is a problem of its own key; the walk goes on past it. Reads only.
 */
export async function auditKeyvStore(connection: KeyvConnection): Promise<StoreAuditReport> {
  const report = emptyAuditReport();
  const storeName = connection.name;
  let quarantined = 0;
  for await (const [key, value] of connection.entries('walk')) {
    if (isUnreadableRow(value)) {
      await auditItem(report, key, async () => {
        throw unreadableRowError(storeName, key, value, rowKindOfKey(key));
      });
      continue;
    }
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
    } else if (foldKeyParts(key) !== undefined) {
      // Filed under its key: a record copied over another fold's id is the problem of that key.
      const filed = foldKeyParts(key)!;
      if (
        await auditItem(report, key, async () => unwrapFold(value, filed.sessionId, filed.foldId, { storeName, key }))
      )
        report.checked.folds += 1;
    } else if (kind === 'fold') {
      report.problems.push({
        key,
        code: 'STORE.UNKNOWN_ENTRY',
        message: `${key} holds a fold record but is no fold key`,
      });
    } else if (kind === 'state') {
      const sessionId = sessionKeyParts(key)?.sessionId ?? String((value as { sessionId?: unknown }).sessionId);
      if (await auditItem(report, key, async () => unwrapState(value, sessionId, { storeName, key })))
        report.checked.states += 1;
    } else if (kind === 'request-log') {
      const rows = (value as Partial<StoredRequestLogChunk>).rows;
      await auditItem(report, key, async () => {
        if (!Array.isArray(rows)) checkRequestLogRow(undefined, storeName, key);
        else
          for (const [position, row] of rows.entries())
            checkRequestLogRow(row, storeName, `${key} row ${position + 1}`);
      });
    } else if (kind === QUARANTINED_KIND) {
      quarantined += 1;
    } else if (kind !== 'evidence-usage' && kind !== 'request-log-head') {
      report.problems.push({
        key,
        code: 'STORE.UNKNOWN_ENTRY',
        message: `${key} is not a pi-fold value (kind ${String(kind)})`,
      });
    }
  }
  if (quarantined > 0)
    report.notes.push(
      `${quarantined} value(s) under quarantine/ were set aside by \`pi-fold repair\` (their exact text is kept there; delete them when you no longer need them)`,
    );
  return report;
}

/** What a key holds, for naming a row that cannot be decoded. */
function rowKindOfKey(key: string): string {
  const session = sessionKeyParts(key);
  if (session === undefined) return /(^|:)blob\//.test(key) ? 'blob' : 'store';
  if (session.rest === 'state') return 'engine state';
  if (session.rest.startsWith('fold/')) return 'fold record';
  if (session.rest.startsWith('requests')) return 'request-log';
  if (session.rest.startsWith('evidence')) return 'evidence';
  return 'session';
}
