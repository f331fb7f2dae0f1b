import type { FoldKind } from '../../ports/fold-records.ts';
import { sha256Hex, sha256HexOfLines } from '../util/hashing.ts';

/**
 * A fold id names its kind, its span and the exact bytes of that span (the SHA-256 of each
 * covered entry), so a mark keeps its id when it commits (docs/behaviour.md I5) and another
 * conversation with the same entry ids, under a reused session id, never gets the same id.
 * Ids stored by earlier releases (kind and span only) stay what they were stored as.
 */
export function foldIdFor(kind: FoldKind, firstEntryId: string, lastEntryId: string, spanSha256: string): string {
  return `fold_${sha256Hex(`${kind}\n${firstEntryId}\n${lastEntryId}\n${spanSha256}`).slice(0, 24)}`;
}

/** The digest of a span's bytes an id names: the SHA-256 of its entries' SHA-256s, one per line. */
export function spanSha256(entryShas: readonly string[], first: number, last: number): string {
  return sha256HexOfLines(spanShas(entryShas, first, last));
}

function* spanShas(entryShas: readonly string[], first: number, last: number): Iterable<string> {
  for (let position = first; position <= last; position += 1) yield entryShas[position]!;
}

/** The id of a fold over positions `first`…`last` of an index. */
export function foldIdOfSpan(
  index: { readonly entries: readonly { readonly id: string }[]; readonly shas: readonly string[] },
  kind: FoldKind,
  first: number,
  last: number,
): string {
  return foldIdFor(kind, index.entries[first]!.id, index.entries[last]!.id, spanSha256(index.shas, first, last));
}

/**
 * The `attempt`-th id a record takes when its own is already held by another record of the
 * session (core/store/fold-record-writes.ts): same length and pattern, derived, so the same store
 * state always gives the same id.
 */
export function alternativeFoldId(foldId: string, attempt: number): string {
  return `fold_${sha256Hex(`${foldId}\nalternative ${attempt}`).slice(0, 24)}`;
}

export const FOLD_ID_PATTERN = /^fold_[0-9a-f]{24}$/;
