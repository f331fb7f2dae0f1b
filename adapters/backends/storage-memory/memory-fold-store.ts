import { FoldError } from '../../../core/fold-error.ts';
import { migrateEngineState } from '../../../core/state/engine-state-migration.ts';
import { assertSafeId, assertSha256 } from '../../../core/store/store-keys.ts';
import { sha256Hex, stableStringify } from '../../../core/util/hashing.ts';
import type { EngineState, FoldRecord } from '../../../ports/fold-records.ts';
import type { FoldStore, FoldStoreCapabilities, StoredBlobInfo } from '../../../ports/fold-store.port.ts';
import type { RequestLogRow } from '../../../ports/request-log.ts';

/** Options of the in-memory fold store. */
export interface MemoryFoldStoreOptions {
  /**
   * The time of a put, in milliseconds since the epoch (a blob's `touchedAt`, which gc's grace
   * period reads). A host that stubs `Date.now` (the lab makes it a counter its transcript
   * timestamps come from) passes another clock so that the store's reads do not move it.
   * @default Date.now
   */
  readonly clock?: () => number;
}

/**
 * The in-memory reference FoldStore: the behaviour every other store must match (the
 * conformance suite runs against it). Values are copied in and out, so callers can never
 * alter what is stored, and every read is re-hashed like a real backend's.
 */
export class MemoryFoldStore implements FoldStore {
  readonly specificationVersion = 'v1' as const;
  readonly name = 'memory';
  readonly capabilities: FoldStoreCapabilities = {
    verifiesReads: true,
    shared: false,
    retention: true,
    requestLog: true,
  };
  private readonly blobs = new Map<string, Uint8Array>();
  // When each blob was last put; a re-put refreshes it so a running gc keeps the blob.
  private readonly touched = new Map<string, number>();
  private readonly folds = new Map<string, Map<string, string>>();
  private readonly states = new Map<string, string>();
  private readonly requestLogs = new Map<string, string[]>();
  private readonly clock: () => number;

  constructor(options: MemoryFoldStoreOptions = {}) {
    this.clock = options.clock ?? (() => Date.now());
  }

  async putBlob(content: string | Uint8Array): Promise<string> {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : new Uint8Array(content);
    const sha = sha256Hex(bytes);
    if (!this.blobs.has(sha)) this.blobs.set(sha, bytes);
    this.touched.set(sha, this.clock());
    return sha;
  }

  async getBlob(sha256: string): Promise<Uint8Array> {
    assertSha256(sha256, this.name);
    const bytes = this.blobs.get(sha256);
    if (bytes === undefined)
      throw new FoldError('STORE.NOT_FOUND', `memory store has no blob ${sha256}`, { details: { sha256 } });
    const actual = sha256Hex(bytes);
    if (actual !== sha256)
      throw new FoldError('STORE.HASH_MISMATCH', `memory store blob ${sha256} hashes to ${actual}`, {
        details: { sha256, actual },
      });
    return bytes.slice();
  }

  async hasBlob(sha256: string): Promise<boolean> {
    assertSha256(sha256, this.name);
    return this.blobs.has(sha256);
  }

  async putFold(sessionId: string, record: FoldRecord): Promise<void> {
    assertSafeId(sessionId, 'session id', this.name);
    assertSafeId(record?.id, 'fold id', this.name);
    const serialized = stableStringify(record);
    const session = this.folds.get(sessionId) ?? new Map<string, string>();
    const existing = session.get(record.id);
    if (existing !== undefined && existing !== serialized) {
      throw new FoldError(
        'STORE.WRITE_FAILED',
        `memory store: fold ${record.id} of session ${sessionId} already exists with different content; fold records are immutable`,
        { details: { sessionId, foldId: record.id } },
      );
    }
    session.set(record.id, serialized);
    this.folds.set(sessionId, session);
  }

  async getFold(sessionId: string, foldId: string): Promise<FoldRecord | undefined> {
    assertSafeId(sessionId, 'session id', this.name);
    assertSafeId(foldId, 'fold id', this.name);
    const serialized = this.folds.get(sessionId)?.get(foldId);
    return serialized === undefined ? undefined : (JSON.parse(serialized) as FoldRecord);
  }

  async listFolds(sessionId: string): Promise<readonly FoldRecord[]> {
    assertSafeId(sessionId, 'session id', this.name);
    return [...(this.folds.get(sessionId)?.values() ?? [])].map((serialized) => JSON.parse(serialized) as FoldRecord);
  }

  async saveState(sessionId: string, state: EngineState): Promise<void> {
    assertSafeId(sessionId, 'session id', this.name);
    this.states.set(sessionId, JSON.stringify(state));
  }

  async loadState(sessionId: string): Promise<EngineState | undefined> {
    assertSafeId(sessionId, 'session id', this.name);
    const serialized = this.states.get(sessionId);
    return serialized === undefined ? undefined : migrateEngineState(JSON.parse(serialized), sessionId);
  }

  async listSessions(): Promise<readonly string[]> {
    return [...new Set([...this.folds.keys(), ...this.states.keys()])];
  }

  async *listBlobs(): AsyncIterable<StoredBlobInfo> {
    for (const sha256 of [...this.blobs.keys()]) {
      const info = await this.blobInfo(sha256);
      if (info !== undefined) yield info;
    }
  }

  async blobInfo(sha256: string): Promise<StoredBlobInfo | undefined> {
    assertSha256(sha256, this.name);
    const bytes = this.blobs.get(sha256);
    return bytes === undefined ? undefined : { sha256, bytes: bytes.length, touchedAt: this.touched.get(sha256) ?? 0 };
  }

  async deleteBlob(
    sha256: string,
    options: { readonly touchedBefore: number },
  ): Promise<'deleted' | 'kept' | 'absent'> {
    assertSha256(sha256, this.name);
    if (!this.blobs.has(sha256)) return 'absent';
    if ((this.touched.get(sha256) ?? 0) >= options.touchedBefore) return 'kept';
    this.blobs.delete(sha256);
    this.touched.delete(sha256);
    return 'deleted';
  }

  async appendRequestLog(sessionId: string, rows: readonly RequestLogRow[]): Promise<void> {
    assertSafeId(sessionId, 'session id', this.name);
    const log = this.requestLogs.get(sessionId) ?? [];
    for (const row of rows) log.push(JSON.stringify(row));
    this.requestLogs.set(sessionId, log);
  }

  async readRequestLog(sessionId: string): Promise<readonly RequestLogRow[]> {
    assertSafeId(sessionId, 'session id', this.name);
    return (this.requestLogs.get(sessionId) ?? []).map((serialized) => JSON.parse(serialized) as RequestLogRow);
  }

  async dispose(): Promise<void> {}
}
