import { FoldError } from '../../../core/fold-error.ts';
import { sha256Hex } from '../../../core/util/hashing.ts';

/**
 * The bytes of a string (UTF-8) or a private copy of caller bytes, so later edits by the caller
 * cannot reach the store.
 */
export function contentBytes(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? Buffer.from(content, 'utf8') : Uint8Array.from(content);
}

/**
 * Re-hash bytes read under `sha256` and refuse them when they differ: a store never returns a
 * byte it cannot vouch for. The error names the store, the sha and where it was read.
 */
export function assertBlobMatches(bytes: Uint8Array, sha256: string, storeName: string, where: string): void {
  const actual = sha256Hex(bytes);
  if (actual !== sha256) {
    throw new FoldError(
      'STORE.HASH_MISMATCH',
      `${storeName} store: blob ${sha256} at ${where} hashes to ${actual}; refusing corrupted bytes`,
      {
        details: { sha256, actual, key: where },
      },
    );
  }
}

/** Default cumulative evidence a session may store before writes are refused (512 MiB). */
export const DEFAULT_EVIDENCE_CAP_BYTES = 512 * 1024 * 1024;

/** Validate an evidence cap option once, at construction. */
export function checkedCapBytes(capBytes: number | undefined, storeName: string): number {
  const cap = capBytes ?? DEFAULT_EVIDENCE_CAP_BYTES;
  if (!Number.isSafeInteger(cap) || cap < 1)
    throw new FoldError(
      'SETTINGS.INVALID',
      `${storeName} store: evidence cap must be a positive integer of bytes, got ${String(capBytes)}`,
    );
  return cap;
}

/** The refusal raised when an artifact would take a session past its cap; nothing is written. */
export function capReached(
  storeName: string,
  sessionId: string,
  usedBytes: number,
  addedBytes: number,
  capBytes: number,
): FoldError {
  return new FoldError(
    'STORE.CAP_REACHED',
    `${storeName} store: session ${sessionId} holds ${usedBytes} bytes of evidence; adding ${addedBytes} would pass its cap of ${capBytes}`,
    {
      details: { sessionId, usedBytes, addedBytes, capBytes },
    },
  );
}
