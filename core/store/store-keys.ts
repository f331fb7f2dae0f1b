import { FoldError } from '../fold-error.ts';

const SHA256_PATTERN = /^[0-9a-f]{64}$/;
const SAFE_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,199}$/;

/**
 * Keys reach stores from models and session files, so every store validates them the same
 * way: a session or fold id can never smuggle a path separator, `..` or a control char.
 */
export function assertSha256(value: unknown, storeName: string): asserts value is string {
  if (typeof value !== 'string' || !SHA256_PATTERN.test(value)) {
    throw new FoldError(
      'STORE.INVALID_KEY',
      `${storeName} store: ${preview(value)} is not a SHA-256 (64 lowercase hex chars)`,
      { details: { key: preview(value) } },
    );
  }
}

export function assertSafeId(value: unknown, what: string, storeName: string): asserts value is string {
  if (typeof value !== 'string' || !SAFE_ID_PATTERN.test(value) || value.includes('..')) {
    throw new FoldError(
      'STORE.INVALID_KEY',
      `${storeName} store: ${what} ${preview(value)} must be 1-200 letters, digits, '.', '_', ':' or '-', start with a letter or digit, and contain no '..'`,
      {
        details: { what, key: preview(value) },
      },
    );
  }
}

function preview(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value);
  return value === null ? 'null' : typeof value;
}
