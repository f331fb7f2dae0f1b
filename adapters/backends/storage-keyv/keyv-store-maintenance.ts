import { sha256Hex } from '../../../core/util/hashing.ts';
import type { RequestLogRow } from '../../../ports/request-log.ts';
import { checkRequestLogRow } from '../storage-shared/request-log-rows.ts';
import type { MendedItem, RequestLogMend, StoredItem, StoreMaintenance } from '../storage-shared/store-maintenance.ts';
import type { KeyvFoldStore } from './keyv-fold-store.ts';
import { QUARANTINED_KIND, type QuarantinedValue, quarantineKeyvValue } from './keyv-quarantine.ts';
import {
  blobKey,
  decodeStoredBytes,
  evidenceKey,
  evidenceUsageKey,
  foldKey,
  requestLogChunkKey,
  requestLogHeadKey,
  type StoredEvidenceUsage,
  stateKey,
  storedKind,
} from './keyv-records.ts';
import { chunkCount, type StoredRequestLogChunk, type StoredRequestLogHead } from './keyv-request-log.ts';
import { foldKeyParts, isUnreadableRow, sessionKeyParts, storedText } from './keyv-unreadable-rows.ts';

/** `pi-fold repair`'s access to a Keyv-backed store (see StoreMaintenance). */
export class KeyvStoreMaintenance implements StoreMaintenance {
  constructor(private readonly store: KeyvFoldStore) {}

  private get connection() {
    return this.store.connection;
  }

  async foldIdsOf(sessionId: string): Promise<string[]> {
    const ids: string[] = [];
    for await (const [key] of this.connection.entries('list fold records of')) {
      const filed = foldKeyParts(key);
      if (filed?.sessionId === sessionId) ids.push(filed.foldId);
    }
    return ids.sort();
  }

  async setAside(
    item: StoredItem,
    reason: string,
    options: { readonly keepOriginal?: boolean } = {},
  ): Promise<string | undefined> {
    const key =
      item.kind === 'blob'
        ? blobKey(item.sha256)
        : item.kind === 'state'
          ? stateKey(item.sessionId)
          : foldKey(item.sessionId, item.foldId);
    return this.setAsideKey(key, reason, options.keepOriginal === true);
  }

  private async setAsideKey(key: string, reason: string, keepOriginal: boolean): Promise<string | undefined> {
    const value = await this.connection.read(key, 'read before setting aside');
    if (value === undefined) return undefined;
    if (!keepOriginal) return quarantineKeyvValue(this.connection, key, value, reason);
    const at = new Date();
    const aside = `quarantine/${key}@${at.getTime()}`;
    const kept: QuarantinedValue = {
      kind: QUARANTINED_KIND,
      key,
      reason,
      at: at.toISOString(),
      text: storedText(value),
    };
    await this.connection.write(aside, kept, 'keep a copy of a damaged value as');
    return aside;
  }

  async intactCopyOf(sha256: string): Promise<Uint8Array | undefined> {
    for await (const [key, value] of this.connection.entries('look for a copy of a blob in')) {
      if (sessionKeyParts(key)?.rest !== `evidence/${sha256}` || storedKind(value) !== 'evidence') continue;
      const decoded = decodeStoredBytes(value);
      if (decoded !== undefined && sha256Hex(decoded.bytes) === sha256) return decoded.bytes;
    }
    return undefined;
  }

  async mendEvidence(sessionId: string, options: { readonly dryRun: boolean }): Promise<readonly MendedItem[]> {
    const damaged: string[] = [];
    let intactBytes = 0;
    let usage: unknown;
    for await (const [key, value] of this.connection.entries('check the evidence of')) {
      const parts = sessionKeyParts(key);
      if (parts?.sessionId !== sessionId) continue;
      if (parts.rest === 'evidence-usage') usage = value;
      if (!parts.rest.startsWith('evidence/')) continue;
      const sha256 = parts.rest.slice('evidence/'.length);
      const decoded = isUnreadableRow(value) ? undefined : decodeStoredBytes(value);
      if (decoded !== undefined && sha256Hex(decoded.bytes) === sha256) intactBytes += decoded.bytes.length;
      else damaged.push(sha256);
    }
    const mended: MendedItem[] = [];
    const reason = 'it does not hold the bytes its SHA-256 names (the spilled item is whole in its fold)';
    for (const sha256 of damaged) {
      const key = evidenceKey(sessionId, sha256);
      const where = options.dryRun ? undefined : await this.setAsideKey(key, reason, false);
      mended.push({ what: key, reason, ...(where === undefined ? {} : { where }) });
    }
    const counted = (usage as Partial<StoredEvidenceUsage> | undefined)?.bytes;
    const usageDamaged = usage !== undefined && (isUnreadableRow(usage) || !Number.isSafeInteger(counted));
    if (usageDamaged || (damaged.length > 0 && usage !== undefined)) {
      const key = evidenceUsageKey(sessionId);
      mended.push({ what: key, reason: `recounted from the artifacts that verify (${intactBytes} bytes)` });
      if (!options.dryRun) {
        if (usageDamaged) await this.setAsideKey(key, 'a damaged evidence usage counter', true);
        const recounted: StoredEvidenceUsage = { kind: 'evidence-usage', sessionId, bytes: intactBytes };
        await this.connection.write(key, recounted, 'recount evidence usage');
      }
    }
    return mended;
  }

  async mendRequestLog(sessionId: string, options: { readonly dryRun: boolean }): Promise<RequestLogMend | undefined> {
    const { connection } = this;
    const headKey = requestLogHeadKey(sessionId);
    const head = await connection.read(headKey, 'read the request log');
    const headDamaged =
      head !== undefined && (isUnreadableRow(head) || !Number.isInteger((head as StoredRequestLogHead).chunks));
    const chunks = await chunkCount(connection, sessionId);
    const mended: { key: string; rows: RequestLogRow[]; value: unknown }[] = [];
    let kept = 0;
    for (let index = 0; index < chunks; index += 1) {
      const key = requestLogChunkKey(sessionId, index);
      const value = await connection.read(key, 'read the request log');
      const readable = readableRows(value, connection.name, key);
      kept += readable.rows.length;
      if (readable.damaged) mended.push({ key, rows: readable.rows, value });
    }
    if (!headDamaged && mended.length === 0) return undefined;
    const mend = { damaged: mended.length + (headDamaged ? 1 : 0), salvaged: 0, kept };
    if (options.dryRun) return { ...mend, setAside: [] };
    const setAside: string[] = [];
    for (const chunk of mended) {
      const aside = await this.setAsideKey(chunk.key, 'a damaged request-log chunk', true);
      if (aside !== undefined) setAside.push(aside);
      // The chunk keeps its place in the sequence, holding only its readable rows.
      const replacement: StoredRequestLogChunk = {
        kind: 'request-log',
        sessionId,
        chunk: Number(chunk.key.slice(chunk.key.lastIndexOf('/') + 1)),
        rows: chunk.rows,
      };
      await connection.write(chunk.key, replacement, 'mend the request log');
    }
    if (headDamaged) {
      const aside = await this.setAsideKey(headKey, 'a damaged request-log head', true);
      if (aside !== undefined) setAside.push(aside);
      const replacement: StoredRequestLogHead = { kind: 'request-log-head', sessionId, chunks };
      await connection.write(headKey, replacement, 'mend the request log');
    }
    return { ...mend, setAside };
  }
}

/** The rows of a chunk that read as rows, and whether anything in it did not. A future schema is left alone. */
function readableRows(value: unknown, storeName: string, key: string): { rows: RequestLogRow[]; damaged: boolean } {
  const chunk = value as Partial<StoredRequestLogChunk> | undefined;
  if (value === undefined) return { rows: [], damaged: false };
  if (isUnreadableRow(value) || storedKind(value) !== 'request-log' || !Array.isArray(chunk?.rows))
    return { rows: [], damaged: true };
  const rows: RequestLogRow[] = [];
  let damaged = false;
  chunk.rows.forEach((row, position) => {
    try {
      rows.push(checkRequestLogRow(row, storeName, `${key} row ${position + 1}`));
    } catch (error) {
      if ((error as { code?: unknown }).code === 'STORE.SCHEMA_VERSION') rows.push(row as RequestLogRow);
      else damaged = true;
    }
  });
  return { rows, damaged };
}
