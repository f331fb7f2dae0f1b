/**
 * What `pi-fold repair` needs of a store beyond the FoldStore port: naming what is filed under
 * a session from its keys alone (a damaged record must still be named), setting damaged
 * values aside byte for byte instead of deleting them, finding intact bytes elsewhere in the
 * store, and mending a request log. Each built-in store has one; the CLI drives them.
 */
export interface StoreMaintenance {
  /** Ids of every fold record filed under the session, read from the keys alone. */
  foldIdsOf(sessionId: string): Promise<string[]>;
  /**
   * Set aside what is stored for `item`: its exact bytes go under `quarantine/`, and the item
   * is then removed (or, with `keepOriginal`, left in place to be replaced by the caller).
   * Returns where the copy is, by key or root-relative path; `undefined` when nothing was stored.
   */
  setAside(
    item: StoredItem,
    reason: string,
    options?: { readonly keepOriginal?: boolean },
  ): Promise<string | undefined>;
  /** Intact bytes of a blob held elsewhere in the store (an evidence artifact of the same SHA-256), re-hashed. */
  intactCopyOf(sha256: string): Promise<Uint8Array | undefined>;
  /**
   * Rewrite the session's request log without what cannot be read, keeping every row that
   * can; what was removed is set aside first. `undefined` when the log has no damage.
   */
  mendRequestLog(sessionId: string, options: { readonly dryRun: boolean }): Promise<RequestLogMend | undefined>;
  /**
   * Set aside the session's evidence artifacts that do not verify (a spilled item's exact
   * bytes are also in its fold's blobs, so none is lost), and recount a usage counter that is
   * damaged or counts what was set aside. Returns what was (or would be) set aside or rewritten.
   */
  mendEvidence(sessionId: string, options: { readonly dryRun: boolean }): Promise<readonly MendedItem[]>;
}

/** One value a repair set aside or rewrote: its key or path, why, and where its old bytes are now. */
export interface MendedItem {
  readonly what: string;
  readonly reason: string;
  /** Absent on a dry run, or when nothing was kept (a counter recounted). */
  readonly where?: string;
}

export type StoredItem =
  | { readonly kind: 'fold'; readonly sessionId: string; readonly foldId: string }
  | { readonly kind: 'state'; readonly sessionId: string }
  | { readonly kind: 'blob'; readonly sha256: string };

/** What mending a request log found and did. */
export interface RequestLogMend {
  /** Lines or chunks that could not be read. */
  readonly damaged: number;
  /** Rows found whole after a tear and kept. */
  readonly salvaged: number;
  /** Rows the mended log holds. */
  readonly kept: number;
  /** Where the damaged parts were set aside (nothing on a dry run). */
  readonly setAside: readonly string[];
}
