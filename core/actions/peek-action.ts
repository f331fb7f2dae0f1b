import type { FoldRecord } from '../../ports/fold-records.ts';
import { FoldError } from '../fold-error.ts';
import type { SessionView } from '../session/session-view.ts';
import { SpillBook } from '../spill/spill-book.ts';
import { lostFoldNamed, lostFoldRefusal, readFoldBlob } from '../store/restore-folds.ts';
import { verifiedBlob } from '../store/verified-reads.ts';
import type { FoldAction } from './action-arguments.ts';
import type { ActionCaller, ActionContext, ActionOutcome } from './action-context.ts';
import { guidanceInputs, unknownId } from './action-context.ts';
import { pendingMarkRefusal } from './id-guidance.ts';
import { childFoldLine, documentHeader, entryHeader, PEEK_SEPARATOR } from './peek-layout.ts';
import { rememberEphemeralPeek, slicePeek } from './peek-slice.ts';
import { PieceDocument } from './piece-document.ts';
import { peekSpill } from './spill-reads.ts';

/**
 * docs/behaviour.md B4.2: one level of a fold's exact source, every raw entry verified against its SHA-256
 * before any byte is returned. Child folds appear collapsed with their ids. Appends only:
 * the answer is a tool result, the window is not touched.
 */
export async function peekAction(
  session: ActionContext,
  action: Extract<FoldAction, { action: 'peek' }>,
  caller: ActionCaller,
): Promise<ActionOutcome> {
  if (SpillBook.isSpillId(action.id)) return peekSpill(session, action, caller);
  const record = session.lattice.record(action.id);
  if (record === undefined) {
    // A lost fold whose span was cut again is still named as lost: its old bytes are gone.
    const lost = lostFoldNamed(session.memory, action.id);
    if (lost !== undefined) throw lostFoldRefusal('peek', lost);
    if (session.memory.markById(action.id) !== undefined)
      throw pendingMarkRefusal(guidanceInputs(session), action.id, 'peek');
    throw unknownId(session, action.id, 'peek');
  }
  const document = await peekDocument(session, record);
  const total = document.length;
  const { text, nextOffset, shown, textBytes } = slicePeek(document, action.id, action);
  const mutated = rememberEphemeralPeek(session.memory, action.ephemeral, caller.toolCallId, record.id);
  return {
    text,
    textBytes,
    data: {
      id: record.id,
      kind: record.kind,
      totalBytes: total,
      shown,
      ...(nextOffset === undefined ? {} : { nextOffset }),
      ephemeral: action.ephemeral,
      sourceSha256: record.sourceSha256,
    },
    mutated,
  };
}

/**
 * The one-level document of a fold: exact entry bytes, child folds as one line each. Kept
 * as bytes: verified blobs are spliced in as they are, never decoded and re-encoded.
 */
export async function peekDocument(
  session: Pick<SessionView, 'foldStore' | 'lattice'>,
  record: FoldRecord,
): Promise<PieceDocument> {
  const store = session.foldStore;
  const pieces: Uint8Array[] = [documentHeader(record)];
  for (const part of record.parts) {
    if (part.kind === 'entry') {
      const bytes = await readFoldBlob('peek', record.id, part.entryId, () => verifiedBlob(store, part.sha256));
      pieces.push(PEEK_SEPARATOR, entryHeader(part.entryId, part.sha256), bytes);
      continue;
    }
    pieces.push(PEEK_SEPARATOR, childFoldLine(requireChild(session, record, part.foldId)));
  }
  return new PieceDocument(pieces);
}

/** A child fold named by a record, or a clear error when its record is missing. */
export function requireChild(session: Pick<SessionView, 'lattice'>, record: FoldRecord, childId: string): FoldRecord {
  const child = session.lattice.record(childId);
  if (child === undefined) {
    throw new FoldError('STORE.NOT_FOUND', `fold ${record.id} names child ${childId}, which has no record`, {
      details: { foldId: record.id, childId },
    });
  }
  return child;
}
