import type { DamagedFoldRecord } from '../../../ports/fold-store.port.ts';

const SHA256_TEXT = /[0-9a-f]{64}/g;

/** Every distinct SHA-256 a stored text names, read as plain text (a torn or tampered record included). */
export function sha256sNamedIn(text: string): string[] {
  return [...new Set(text.match(SHA256_TEXT) ?? [])];
}

/** Describe a record whose read failed, for `listAllFolds`'s `onDamaged`. */
export function damagedFoldRecord(
  where: { readonly sessionId: string; readonly foldId: string; readonly key: string },
  error: unknown,
  storedText: string,
): DamagedFoldRecord {
  const code =
    typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : 'STORE.READ_FAILED';
  return {
    ...where,
    code,
    message: error instanceof Error ? error.message : String(error),
    sha256s: sha256sNamedIn(storedText),
  };
}
