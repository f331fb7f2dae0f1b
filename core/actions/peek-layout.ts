import type { FoldRecord } from '../../ports/fold-records.ts';
import { clip, oneLine } from '../folds/briefs.ts';

/**
 * The byte layout of a fold's one-level peek document, in one place: `peek` builds the
 * document from it and `search` computes, from the same pieces, the peek offset at which a
 * match can be read. Headers are ASCII-safe text; entry bytes are spliced in verbatim.
 */
export const PEEK_SEPARATOR = Buffer.from('\n');

export function documentHeader(record: FoldRecord): Buffer {
  return Buffer.from(
    `fold ${record.id} | ${record.kind} | ${record.entryCount} entries | ${record.sourceChars} chars | source sha256 ${record.sourceSha256} | one level, child folds collapsed`,
  );
}

export function entryHeader(entryId: string, sha256: string): Buffer {
  return Buffer.from(`--- entry ${entryId} | sha256 ${sha256.slice(0, 16)} verified\n`);
}

export function childFoldLine(child: FoldRecord): Buffer {
  return Buffer.from(
    `--- child fold ${child.id} | ${child.kind} | ${child.entryCount} entries | ${child.sourceChars} chars | peek it by id\n${clip(oneLine(child.brief), 400)}`,
  );
}
