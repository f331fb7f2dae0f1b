/**
 * Keys and value shapes of a Keyv-backed store. Each session lives under its own key
 * namespace `session/<id>/…`; blobs are shared and content-addressed. Every value names
 * what it is, so listing and `verify` never depend on how an adapter spells keys back.
 */

export const blobKey = (sha256: string) => `blob/${sha256}`;
export const foldKey = (sessionId: string, foldId: string) => `session/${sessionId}/fold/${foldId}`;
export const stateKey = (sessionId: string) => `session/${sessionId}/state`;
export const evidenceKey = (sessionId: string, sha256: string) => `session/${sessionId}/evidence/${sha256}`;
export const evidenceUsageKey = (sessionId: string) => `session/${sessionId}/evidence-usage`;
export const requestLogHeadKey = (sessionId: string) => `session/${sessionId}/requests`;
export const requestLogChunkKey = (sessionId: string, chunk: number) => `session/${sessionId}/requests/${chunk}`;

/** Exact bytes stored as base64 (JSON-safe in every backend). */
export interface StoredBlob {
  readonly kind: 'blob';
  readonly sha256: string;
  readonly base64: string;
  /** When the bytes were last put (ms since the epoch); absent on blobs written before retention existed. */
  readonly touchedAt?: number;
}

export interface StoredArtifact {
  readonly kind: 'evidence';
  readonly sessionId: string;
  readonly sha256: string;
  readonly mediaType?: string;
  readonly base64: string;
}

export interface StoredEvidenceUsage {
  readonly kind: 'evidence-usage';
  readonly sessionId: string;
  readonly bytes: number;
}

/** Decode stored bytes, or `undefined` when the value is not a stored blob/artifact at all. */
export function decodeStoredBytes(value: unknown): { sha256: string; bytes: Uint8Array } | undefined {
  const stored = value as Partial<StoredBlob> | null;
  if (
    typeof stored !== 'object' ||
    stored === null ||
    typeof stored.base64 !== 'string' ||
    typeof stored.sha256 !== 'string'
  )
    return undefined;
  return { sha256: stored.sha256, bytes: Buffer.from(stored.base64, 'base64') };
}

/** What kind of value this is, from its own fields. */
export function storedKind(value: unknown): string | undefined {
  const kind = (value as { kind?: unknown } | null)?.kind;
  return typeof kind === 'string' ? kind : undefined;
}
