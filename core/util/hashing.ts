/** Room core/util/: small helpers with no idea of their own (hashing, bounded parallel work, code points). */

import * as crypto from 'node:crypto';

const { createHash } = crypto;

/**
 * Node's one-shot digest (`crypto.hash`, Node 20.12 and later), when this Node has it. Most
 * of the engine's digests are of short texts (fold ids, stubs, notices), where building a
 * Hash object costs more than the hashing itself, so the one-shot form is used when present.
 */
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string }).hash;

/** Hex SHA-256 of a UTF-8 string or raw bytes. */
export function sha256Hex(content: string | Uint8Array): string {
  return oneShot !== undefined ? oneShot('sha256', content, 'hex') : createHash('sha256').update(content).digest('hex');
}

/**
 * Hex SHA-256 of the texts, each followed by a newline: the digest of `lines.join('\n') + '\n'`,
 * fed to the hash one by one so that the joined copy (a fold's whole span) is never built.
 */
export function sha256HexOfLines(lines: Iterable<string>): string {
  const hash = createHash('sha256');
  for (const line of lines) hash.update(line).update('\n');
  return hash.digest('hex');
}

/**
 * JSON with object keys sorted at every depth, so the same value always has the same bytes
 * (docs/behaviour.md I5: no map-order leaks). Undefined members are dropped as JSON.stringify does.
 */
export function stableStringify(value: unknown): string {
  return JSON.stringify(sortKeysDeep(value));
}

function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Uint8Array) return Array.from(value);
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key];
    if (member !== undefined) sorted[key] = sortKeysDeep(member);
  }
  return sorted;
}

/** Length of a string in UTF-8 bytes, without allocating a buffer. */
export function utf8Length(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
