import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { FoldError } from '../fold-error.ts';
import { sha256Hex } from '../util/hashing.ts';
import { loneSurrogateIndex } from './well-formed-text.ts';

const SHA256_PATTERN = /^[0-9a-f]{64}$/;

/**
 * The most chars an entry may say it shows (more than any string V8 can hold). Bounded so the
 * running sums of a session stay exact integers: 2^31 per entry over a million entries is
 * still under 2^53.
 */
export const MAX_CONTENT_CHARS = 2 ** 31 - 1;

/** Whether `chars` is a content count the engine takes (TranscriptEntry.contentChars). */
export function isContentCount(chars: unknown): chars is number {
  return Number.isInteger(chars) && (chars as number) >= 0 && (chars as number) <= MAX_CONTENT_CHARS;
}

/**
 * Refuse an entry the engine cannot take, by name: before anything changes, so a bad entry
 * leaves the index as it was.
 * @throws FoldError `TRANSCRIPT.INVALID_ENTRY` naming the entry's position, its id and the problem.
 */
export function validateEntry(entry: TranscriptEntry, position: number): void {
  const problem = describeEntryProblem(entry);
  if (problem !== undefined) {
    const id = typeof entry?.id === 'string' ? entry.id : undefined;
    throw new FoldError(
      'TRANSCRIPT.INVALID_ENTRY',
      `entry at position ${position}${id ? ` ("${id}")` : ''}: ${problem}`,
      { details: { position, ...(id ? { entryId: id } : {}) } },
    );
  }
}

/**
 * Refuse an entry whose `sha256` is not the hash of its bytes. Folding stores the bytes under
 * their true hash and checks it against the one the index holds (docs/behaviour.md I2), so a
 * wrong claim could never commit, and would read as a store that filed the entry wrongly.
 * `knownSha256` is what the index already holds for this id (checked when first seen), so a
 * branch handed again is not hashed again.
 * @throws FoldError `TRANSCRIPT.INVALID_ENTRY` naming the entry, the claimed and the true hash.
 */
export function checkClaimedSha256(entry: TranscriptEntry, position: number, knownSha256: string | undefined): void {
  const claimed = entry.sha256;
  if (claimed === undefined || claimed === knownSha256) return;
  const actual = sha256Hex(entry.bytes);
  if (actual === claimed) return;
  throw new FoldError(
    'TRANSCRIPT.INVALID_ENTRY',
    `entry at position ${position} ("${entry.id}"): sha256 ${claimed} does not match its bytes, which hash to ${actual}; hash the exact UTF-8 bytes, or leave sha256 out and the engine hashes them`,
    { details: { position, entryId: entry.id, claimedSha256: claimed, sha256: actual } },
  );
}

/** Why an entry is not one the engine accepts, or undefined when it is. */
export function describeEntryProblem(entry: TranscriptEntry): string | undefined {
  if (typeof entry !== 'object' || entry === null) return 'is not an object';
  if (typeof entry.id !== 'string' || entry.id.length === 0 || entry.id.length > 256)
    return 'id must be a non-empty string of at most 256 chars';
  if (entry.role !== 'user' && entry.role !== 'assistant' && entry.role !== 'toolResult')
    return `role must be user, assistant or toolResult, got ${String(entry.role)}`;
  if (typeof entry.bytes !== 'string') return 'bytes must be a string';
  if (entry.bytes.includes('\n')) return 'bytes must be single-line (canonical JSON never contains a raw newline)';
  if (typeof entry.text !== 'string') return 'text must be a string';
  const unpaired = loneSurrogateProblem(entry);
  if (unpaired !== undefined) return unpaired;
  if (entry.sha256 !== undefined && !SHA256_PATTERN.test(entry.sha256)) return 'sha256 must be 64 lowercase hex chars';
  if (entry.contentChars !== undefined && !isContentCount(entry.contentChars)) {
    return `contentChars must be a non-negative integer of at most ${MAX_CONTENT_CHARS}, got ${String(entry.contentChars)}`;
  }
  if (entry.role === 'toolResult' && (typeof entry.toolCallId !== 'string' || entry.toolCallId.length === 0))
    return 'a toolResult entry needs its toolCallId';
  if (entry.toolCalls !== undefined) {
    if (!Array.isArray(entry.toolCalls)) return 'toolCalls must be an array';
    for (const call of entry.toolCalls) {
      if (typeof call?.id !== 'string' || typeof call.name !== 'string' || typeof call.argumentsJson !== 'string')
        return 'each tool call needs string id, name and argumentsJson';
    }
  }
  return undefined;
}

// docs/behaviour.md I2: bytes are stored as UTF-8 and must read back exactly as given, which a
// lone surrogate cannot; text is refused alike, so no brief shows what no read can return.
function loneSurrogateProblem(entry: TranscriptEntry): string | undefined {
  for (const field of ['bytes', 'text'] as const) {
    const at = loneSurrogateIndex(entry[field]);
    if (at >= 0) {
      const unit = entry[field].charCodeAt(at).toString(16).toUpperCase();
      return `${field} holds an unpaired surrogate (U+${unit}) at char ${at}, which UTF-8 cannot store, so it would not read back as given; escape it in the bytes (JSON.stringify writes \\u${unit.toLowerCase()}) or replace it`;
    }
  }
  return undefined;
}
