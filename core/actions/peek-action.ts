import type { FoldRecord } from '../../ports/fold-records.ts';
import { FoldError } from '../fold-error.ts';
import type { FoldRuntime } from '../fold-runtime.ts';
import { verifiedBlob } from '../verified-reads.ts';
import type { FoldAction } from './action-arguments.ts';
import type { ActionCaller, ActionOutcome } from './execute-action.ts';
import { guidanceInputs, unknownId } from './execute-action.ts';
import { pendingMarkRefusal } from './id-guidance.ts';
import { childFoldLine, documentHeader, entryHeader, PEEK_SEPARATOR } from './peek-layout.ts';
import { PieceDocument } from './piece-document.ts';
import { rememberEphemeralPeek, slicePeek } from './peek-slice.ts';
import { peekSpill } from './spill-reads.ts';
import { SpillBook } from '../spill/spill-book.ts';

/**
 * B4.2: one level of a fold's exact source, every raw entry verified against its SHA-256
 * before any byte is returned. Child folds appear collapsed with their ids. Appends only:
 * the answer is a tool result, the window is not touched.
 */
export async function peekAction(runtime: FoldRuntime, action: Extract<FoldAction, { action: 'peek' }>, caller: ActionCaller): Promise<ActionOutcome> {
  if (SpillBook.isSpillId(action.id)) return peekSpill(runtime, action, caller);
  const record = runtime.lattice.record(action.id);
  if (record === undefined) {
    if (runtime.memory.markById(action.id) !== undefined) throw pendingMarkRefusal(guidanceInputs(runtime), action.id, 'peek');
    throw unknownId(runtime, action.id, 'peek');
  }
  const document = await peekDocument(runtime, record);
  const total = document.length;
  const { text, nextOffset, shown } = slicePeek(document, action.id, action);
  const mutated = rememberEphemeralPeek(runtime.memory, action.ephemeral, caller.toolCallId, record.id);
  return {
    text,
    data: { id: record.id, kind: record.kind, totalBytes: total, shown, ...(nextOffset === undefined ? {} : { nextOffset }), ephemeral: action.ephemeral, sourceSha256: record.sourceSha256 },
    mutated,
  };
}

/**
 * The one-level document of a fold: exact entry bytes, child folds as one line each. Kept
 * as bytes: verified blobs are spliced in as they are, never decoded and re-encoded.
 */
export async function peekDocument(runtime: FoldRuntime, record: FoldRecord): Promise<PieceDocument> {
  const store = runtime.dependencies.foldStore;
  const pieces: Uint8Array[] = [documentHeader(record)];
  for (const part of record.parts) {
    if (part.kind === 'entry') {
      pieces.push(PEEK_SEPARATOR, entryHeader(part.entryId, part.sha256), await verifiedBlob(store, part.sha256));
      continue;
    }
    pieces.push(PEEK_SEPARATOR, childFoldLine(requireChild(runtime, record, part.foldId)));
  }
  return new PieceDocument(pieces);
}

/** A child fold named by a record, or a clear error when its record is missing. */
export function requireChild(runtime: FoldRuntime, record: FoldRecord, childId: string): FoldRecord {
  const child = runtime.lattice.record(childId);
  if (child === undefined) {
    throw new FoldError('STORE.NOT_FOUND', `fold ${record.id} names child ${childId}, which has no record`, { details: { foldId: record.id, childId } });
  }
  return child;
}

/**
 * A peek's full text stays only until the model has answered after it; then it shows as a
 * one-line stub, a give-back rewrite at the next projection. Returns whether any peek retired.
 */
export function retireAnsweredPeeks(runtime: FoldRuntime): boolean {
  if (runtime.memory.ephemeralPeeks.every((peek) => peek.retired)) return false;
  let changed = false;
  runtime.memory.ephemeralPeeks = runtime.memory.ephemeralPeeks.map((peek) => {
    if (peek.retired) return peek;
    const position = runtime.index.resultPositionOf(peek.toolCallId);
    if (position === undefined || runtime.index.lastAssistantPosition <= position) return peek;
    changed = true;
    runtime.pendingCauses.add('give-back');
    return { ...peek, retired: true };
  });
  return changed;
}

