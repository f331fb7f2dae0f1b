import type { FoldKind } from '../ports/fold-records.ts';
import { sha256Hex } from './hashing.ts';

/** Fold ids derive from kind and span, so a mark keeps its id when it commits (docs/behaviour.md I5). */
export function foldIdFor(kind: FoldKind, firstEntryId: string, lastEntryId: string): string {
  return `fold_${sha256Hex(`${kind}\n${firstEntryId}\n${lastEntryId}`).slice(0, 24)}`;
}

export const FOLD_ID_PATTERN = /^fold_[0-9a-f]{24}$/;
