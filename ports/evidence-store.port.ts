/**
 * EvidenceStore: immutable artifacts for oversized tool results (docs/behaviour.md B6.2).
 */

/** What a stored artifact is known by. */
export interface EvidenceReference {
  /** Where the artifact can be read (`file://…`, `keyv://…`, `memory://…`). */
  readonly uri: string;
  readonly sha256: string;
  /** Size in bytes. */
  readonly bytes: number;
}

export interface EvidenceStoreV1 {
  readonly specificationVersion: 'v1';
  readonly name: string;
  /**
   * Whether puts may overlap (optional, false when absent): the store checks and reserves a
   * session's cap with no await in between, so puts under way together never pass it
   * between them. The engine then writes several artifacts side by side; without it, one
   * at a time.
   */
  readonly concurrentPuts?: boolean;
  /**
   * Store an artifact for a session. Content-addressed and immutable.
   * @throws FoldError `STORE.CAP_REACHED` when the session's cumulative cap would be exceeded.
   */
  put(sessionId: string, content: Uint8Array | string, mediaType?: string): Promise<EvidenceReference>;
  /** Read an artifact back, verified against its SHA-256. */
  get(sessionId: string, sha256: string): Promise<Uint8Array>;
  /** Bytes stored so far for a session (counted against the cap). */
  usage(sessionId: string): Promise<number>;
  dispose?(): Promise<void>;
}

export type EvidenceStore = EvidenceStoreV1;
