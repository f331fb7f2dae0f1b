import { FoldError } from '../../../core/fold-error.ts';
import { isRecordDamage } from '../../../core/store/restore-folds.ts';
import { assertSafeId, assertSha256 } from '../../../core/store/store-keys.ts';
import { sha256Hex, stableStringify } from '../../../core/util/hashing.ts';
import type { EngineState, FoldRecord } from '../../../ports/fold-records.ts';
import type {
  FoldStore,
  FoldStoreCapabilities,
  ListAllFoldsOptions,
  StoredBlobInfo,
} from '../../../ports/fold-store.port.ts';
import type { RequestLogRow } from '../../../ports/request-log.ts';
import { assertBlobMatches, contentBytes } from '../storage-shared/blob-checks.ts';
import { damagedFoldRecord } from '../storage-shared/damaged-records.ts';
import { unwrapFold, unwrapState, wrapFold, wrapState } from '../storage-shared/stored-records.ts';
import { deleteKeyvBlob, keyvBlobInfo, listKeyvBlobs, listKeyvSessions, needsTouch } from './keyv-blob-retention.ts';
import { KeyvConnection, type KeyvStoreOptions } from './keyv-connection.ts';
import { blobKey, decodeStoredBytes, foldKey, type StoredBlob, stateKey } from './keyv-records.ts';
import { appendKeyvRequestLog, readKeyvRequestLog } from './keyv-request-log.ts';
import { foldKeyParts, isUnreadableRow, storedText, unreadableRowError } from './keyv-unreadable-rows.ts';

/**
 * FoldStore on any Keyv instance: SQLite for one machine, Redis or PostgreSQL to share one
 * store across machines. Blobs are re-hashed on every read; fold records are immutable and
 * carry a checksum and schema version; state is one value, replaced whole.
 */
export class KeyvFoldStore implements FoldStore {
  readonly specificationVersion = 'v1' as const;
  readonly name: string;
  readonly capabilities: FoldStoreCapabilities;
  readonly connection: KeyvConnection;
  /** Whether `dispose()` disconnects the Keyv; a runtime given this store then closes it with itself. */
  readonly ownsConnection: boolean;

  constructor(options: KeyvStoreOptions) {
    this.connection = new KeyvConnection(options, 'keyv');
    this.ownsConnection = options.ownsConnection === true;
    this.name = this.connection.name;
    this.capabilities = { verifiesReads: true, shared: this.connection.shared, retention: true, requestLog: true };
  }

  async putBlob(content: string | Uint8Array): Promise<string> {
    const bytes = contentBytes(content);
    const sha256 = sha256Hex(bytes);
    const key = blobKey(sha256);
    // Deduplicate, but never keep a damaged copy: the caller has just handed us the true bytes.
    const value = await this.connection.read(key, 'check blob');
    const existing = decodeStoredBytes(value);
    const now = Date.now();
    // An intact copy is kept; its time is refreshed (at most once a minute) so a running gc sees the re-put.
    if (existing !== undefined && sha256Hex(existing.bytes) === sha256 && !needsTouch(value, now)) return sha256;
    const stored: StoredBlob = { kind: 'blob', sha256, base64: Buffer.from(bytes).toString('base64'), touchedAt: now };
    await this.connection.write(key, stored, 'write blob');
    return sha256;
  }

  async getBlob(sha256: string): Promise<Uint8Array> {
    assertSha256(sha256, this.name);
    const key = blobKey(sha256);
    const value = await this.connection.read(key, 'read blob');
    if (value === undefined)
      throw new FoldError('STORE.NOT_FOUND', `${this.name} store has no blob ${sha256}`, { details: { sha256, key } });
    if (isUnreadableRow(value)) throw unreadableRowError(this.name, key, value, 'blob');
    const decoded = decodeStoredBytes(value);
    if (decoded === undefined)
      throw new FoldError('STORE.HASH_MISMATCH', `${this.name} store: ${key} does not hold a blob (corrupted value)`, {
        details: { sha256, key },
      });
    assertBlobMatches(decoded.bytes, sha256, this.name, key);
    return decoded.bytes;
  }

  async hasBlob(sha256: string): Promise<boolean> {
    assertSha256(sha256, this.name);
    return this.connection.has(blobKey(sha256), 'check blob');
  }

  async putFold(sessionId: string, record: FoldRecord): Promise<void> {
    assertSafeId(sessionId, 'session id', this.name);
    assertSafeId(record?.id, 'fold id', this.name);
    const key = foldKey(sessionId, record.id);
    const existing = await this.getFold(sessionId, record.id);
    if (existing !== undefined) {
      if (stableStringify(existing) === stableStringify(record)) return;
      throw new FoldError(
        'STORE.WRITE_FAILED',
        `${this.name} store: fold ${record.id} of session ${sessionId} already exists with different content; fold records are immutable`,
        {
          details: { sessionId, foldId: record.id, key },
        },
      );
    }
    await this.connection.write(key, wrapFold(sessionId, record), 'write fold record');
  }

  async getFold(sessionId: string, foldId: string): Promise<FoldRecord | undefined> {
    assertSafeId(sessionId, 'session id', this.name);
    assertSafeId(foldId, 'fold id', this.name);
    const key = foldKey(sessionId, foldId);
    const value = await this.connection.read(key, 'read fold record');
    return value === undefined ? undefined : this.checkedFold(value, sessionId, foldId, key);
  }

  private checkedFold(value: unknown, sessionId: string, foldId: string, key: string): FoldRecord {
    if (isUnreadableRow(value)) throw unreadableRowError(this.name, key, value, 'fold record');
    return unwrapFold(value, sessionId, foldId, { storeName: this.name, key });
  }

  /**
   * Walks the Keyv namespace (the runtime itself never lists; `verify` and tools do). A record
   * is filed under its key: the session and id the key names are the ones it must hold, so a
   * record copied over another id is refused here as `getFold` refuses it.
   */
  async listFolds(sessionId: string): Promise<readonly FoldRecord[]> {
    assertSafeId(sessionId, 'session id', this.name);
    const records: FoldRecord[] = [];
    for await (const [key, value] of this.connection.entries('list fold records of')) {
      const filed = foldKeyParts(key);
      if (filed?.sessionId !== sessionId) continue;
      records.push(this.checkedFold(value, sessionId, filed.foldId, key));
    }
    return records.sort((left, right) => (left.id < right.id ? -1 : left.id > right.id ? 1 : 0));
  }

  /**
   * Every fold record of the namespace in one walk (gc uses it instead of one walk per
   * session). A record that cannot be read goes to `onDamaged`, and the walk goes on.
   */
  async *listAllFolds(
    options: ListAllFoldsOptions = {},
  ): AsyncIterable<{ readonly sessionId: string; readonly record: FoldRecord }> {
    for await (const [key, value] of this.connection.entries('list fold records of')) {
      const filed = foldKeyParts(key);
      if (filed === undefined) continue;
      let record: FoldRecord;
      try {
        record = this.checkedFold(value, filed.sessionId, filed.foldId, key);
      } catch (error) {
        if (options.onDamaged === undefined || !isRecordDamage(error)) throw error;
        options.onDamaged(damagedFoldRecord({ ...filed, key }, error, storedText(value)));
        continue;
      }
      yield { sessionId: filed.sessionId, record };
    }
  }

  async saveState(sessionId: string, state: EngineState): Promise<void> {
    assertSafeId(sessionId, 'session id', this.name);
    // One key, one write: every Keyv backend replaces a value atomically.
    await this.connection.write(stateKey(sessionId), wrapState(sessionId, state), 'write engine state');
  }

  async loadState(sessionId: string): Promise<EngineState | undefined> {
    assertSafeId(sessionId, 'session id', this.name);
    const key = stateKey(sessionId);
    const value = await this.connection.read(key, 'read engine state');
    if (isUnreadableRow(value)) throw unreadableRowError(this.name, key, value, 'engine state');
    return value === undefined ? undefined : unwrapState(value, sessionId, { storeName: this.name, key });
  }

  /** Walks the namespace: sessions named by fold records or state. */
  async listSessions(): Promise<readonly string[]> {
    return listKeyvSessions(this.connection);
  }

  listBlobs(): AsyncIterable<StoredBlobInfo> {
    return listKeyvBlobs(this.connection);
  }

  async blobInfo(sha256: string): Promise<StoredBlobInfo | undefined> {
    return keyvBlobInfo(this.connection, this.name, sha256);
  }

  async deleteBlob(
    sha256: string,
    options: { readonly touchedBefore: number },
  ): Promise<'deleted' | 'kept' | 'absent'> {
    return deleteKeyvBlob(this.connection, this.name, sha256, options.touchedBefore);
  }

  async appendRequestLog(sessionId: string, rows: readonly RequestLogRow[]): Promise<void> {
    await appendKeyvRequestLog(this.connection, sessionId, rows);
  }

  async readRequestLog(sessionId: string): Promise<readonly RequestLogRow[]> {
    return readKeyvRequestLog(this.connection, sessionId);
  }

  async dispose(): Promise<void> {
    await this.connection.dispose();
  }
}
