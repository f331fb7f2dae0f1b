import type { EngineState, FoldRecord } from './fold-records.ts';
import type { RequestLogRow } from './request-log.ts';

/**
 * FoldStore: where exact source bytes, fold records and engine state live.
 *
 * Blobs are content-addressed: the key is the SHA-256 of the bytes. A store must verify a
 * blob against its key before returning it, and must fail loudly rather than report a
 * missing value when the backend itself fails (a failing store is never a miss).
 *
 * Durability is ordered, not per call: a blob may become durable as late as the `putFold`
 * that names it, and a record as late as the `saveState` that lists it, never later. A
 * crash may lose what nothing durable names yet; it never leaves a durable record naming a
 * lost blob, or a durable state listing a lost record. (The engine puts a commit's blobs
 * side by side, so `putBlob` calls may overlap.)
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
  /**
   * Persist a committed fold record of a session. Records are immutable: rewriting one with
   * different content is refused.
   */
  putFold(sessionId: string, record: FoldRecord): Promise<void>;
  /** A fold record, or `undefined` when the session has none with that id. */
  getFold(sessionId: string, foldId: string): Promise<FoldRecord | undefined>;
  /** Every fold record of a session, in no particular order. */
  listFolds(sessionId: string): Promise<readonly FoldRecord[]>;
  /** Replace the session's engine state atomically (all or nothing). */
  saveState(sessionId: string, state: EngineState): Promise<void>;
  /** The session's engine state, migrated to the current schema, or `undefined` for a new session. */
  loadState(sessionId: string): Promise<EngineState | undefined>;
  /**
   * Make every blob put so far durable now rather than at the next `putFold` (optional: a
   * store whose puts are durable when they return has nothing to do). The engine writes the
   * blobs of pending marks ahead of their commit and calls this off the request path, so the
   * commit's record finds them already synced.
   */
  flushBlobs?(): Promise<void>;
  /** Release connections and handles. Safe to call twice. */
  dispose?(): Promise<void>;
  /**
   * Retention (optional; present together when `capabilities.retention` is true). Used by
   * `pi-fold gc` and the size caps, never by the engine's request path.
   *
   * Every session that has fold records or engine state, in no particular order.
   */
  listSessions?(): Promise<readonly string[]>;
  /**
   * Every fold record of every session in one pass (optional even with retention): stores
   * that list a session's folds by walking everything (Keyv) offer it so gc walks once, not
   * once per session. Records are checked as `getFold` checks them. A record that cannot be
   * read as one is passed to `options.onDamaged` and the walk goes on; a store that does not
   * take the option may throw instead (gc then stops, deleting nothing).
   */
  listAllFolds?(
    options?: ListAllFoldsOptions,
  ): AsyncIterable<{ readonly sessionId: string; readonly record: FoldRecord }>;
  /** Every stored blob with its size and last write time, without reading it verified. */
  listBlobs?(): AsyncIterable<StoredBlobInfo>;
  /** One blob's size and last write time, or `undefined` when absent. */
  blobInfo?(sha256: string): Promise<StoredBlobInfo | undefined>;
  /**
   * Delete a blob only if it was last written before `touchedBefore` (ms since the epoch),
   * checking that as close to the delete as the backend allows, so a writer that re-puts the
   * blob meanwhile keeps it. Returns what happened.
   */
  deleteBlob?(sha256: string, options: { readonly touchedBefore: number }): Promise<'deleted' | 'kept' | 'absent'>;
  /**
   * Request log (optional; present together when `capabilities.requestLog` is true): rows
   * appended in order, never rewritten; read back whole by viewers. An observation record,
   * so a store may lose its newest rows in a crash (never older ones, never reorder them).
   */
  appendRequestLog?(sessionId: string, rows: readonly RequestLogRow[]): Promise<void>;
  /** Every row appended for a session, in order; an empty list for a session with none. */
  readRequestLog?(sessionId: string): Promise<readonly RequestLogRow[]>;
}

/** How a walk of every fold record reports the records it cannot read. */
export interface ListAllFoldsOptions {
  readonly onDamaged?: (damaged: DamagedFoldRecord) => void;
}

/** A stored fold record that cannot be read as one: torn, tampered, of another id or session, of an unknown schema. */
export interface DamagedFoldRecord {
  readonly sessionId: string;
  /** The id its key names. */
  readonly foldId: string;
  /** Key or root-relative path. */
  readonly key: string;
  /** FoldError code of the refused read. */
  readonly code: string;
  readonly message: string;
  /**
   * Every SHA-256 its stored text still names, read as plain text: what it may reference,
   * so retention keeps those blobs while the damage is looked at.
   */
  readonly sha256s: readonly string[];
}

/** What retention knows about one stored blob. */
export interface StoredBlobInfo {
  readonly sha256: string;
  /** Size of the exact bytes. */
  readonly bytes: number;
  /**
   * When the blob was last written or re-put (ms since the epoch). `putBlob` of bytes already
   * stored refreshes it (a store may skip refreshes less than a minute apart).
   */
  readonly touchedAt: number;
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
  /**
   * The store implements `listSessions`, `listBlobs`, `blobInfo` and `deleteBlob`, and
   * refreshes a blob's `touchedAt` when its bytes are put again (garbage collection, caps).
   * @default false
   */
  readonly retention?: boolean;
  /**
   * The store implements `appendRequestLog` and `readRequestLog` (the viewer's history).
   * @default false
   */
  readonly requestLog?: boolean;
}
