import type { EngineState, FoldRecord } from './fold-records.ts';

/**
 * FoldStore: where exact source bytes, fold records and engine state live.
 *
 * Blobs are content-addressed: the key is the SHA-256 of the bytes. A store must verify a
 * blob against its key before returning it, and must fail loudly rather than report a
 * missing value when the backend itself fails (a failing store is never a miss).
 */
export interface FoldStoreV1 {
  readonly specificationVersion: 'v1';
  /** Short adapter name used in error messages, e.g. `memory`, `fs`, `sqlite`. */
  readonly name: string;
  /** Optional extras this store offers, declared once rather than probed at call sites. */
  readonly capabilities?: FoldStoreCapabilities;
  /**
   * Store bytes under their SHA-256 and return it. Idempotent: storing the same bytes twice
   * is a no-op. A string is stored as its UTF-8 encoding.
   */
  putBlob(content: string | Uint8Array): Promise<string>;
  /**
   * Return the bytes stored under `sha256`, re-hashed before return.
   * @throws FoldError `STORE.NOT_FOUND` when absent, `STORE.HASH_MISMATCH` when corrupted.
   */
  getBlob(sha256: string): Promise<Uint8Array>;
  /** Whether a blob is present (not verified). */
  hasBlob(sha256: string): Promise<boolean>;
  /** Persist a committed fold record of a session. Records are immutable: rewriting one with different content is refused. */
  putFold(sessionId: string, record: FoldRecord): Promise<void>;
  /** A fold record, or `undefined` when the session has none with that id. */
  getFold(sessionId: string, foldId: string): Promise<FoldRecord | undefined>;
  /** Every fold record of a session, in no particular order. */
  listFolds(sessionId: string): Promise<readonly FoldRecord[]>;
  /** Replace the session's engine state atomically (all or nothing). */
  saveState(sessionId: string, state: EngineState): Promise<void>;
  /** The session's engine state, migrated to the current schema, or `undefined` for a new session. */
  loadState(sessionId: string): Promise<EngineState | undefined>;
  /** Release connections and handles. Safe to call twice. */
  dispose?(): Promise<void>;
}

export type FoldStore = FoldStoreV1;

export interface FoldStoreCapabilities {
  /**
   * The store re-hashes every blob on read and refuses a mismatch, so callers need not.
   * @default false
   */
  readonly verifiesReads?: boolean;
  /**
   * Several processes may share this store at once (e.g. Redis, PostgreSQL).
   * @default false
   */
  readonly shared?: boolean;
}
