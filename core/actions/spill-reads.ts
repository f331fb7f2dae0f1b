import type { SpillRead } from '../spill/spill-book.ts';
import { spillPeekHeader, spillPeekHeaderBytes } from '../spill/spill-plan.ts';
import type { FoldAction } from './action-arguments.ts';
import type { ActionCaller, ActionContext, ActionOutcome } from './action-context.ts';
import { unknownId } from './action-context.ts';
import { rememberEphemeralPeek, slicePeek } from './peek-slice.ts';
import { PieceDocument } from './piece-document.ts';

/**
 * docs/behaviour.md B4.2 on a spilled item (B6.2): its exact bytes, verified against the pointer's SHA-256
 * before any of them is returned. The peek text is one header line and the item's bytes, so
 * offsets (the window's pointer line, `search` hits) are bytes into that text, as for a fold.
 * Where the bytes came from (artifact or transcript) is in the answer's data.
 */
export async function peekSpill(
  session: ActionContext,
  action: Extract<FoldAction, { action: 'peek' }>,
  caller: ActionCaller,
): Promise<ActionOutcome> {
  const read = await readSpill(session, action.id, 'peek');
  const { pointer } = read;
  const document = new PieceDocument([spillPeekHeader(pointer), read.bytes]);
  const { text, nextOffset, shown, textBytes } = slicePeek(document, action.id, action);
  const mutated = rememberEphemeralPeek(session.memory, action.ephemeral, caller.toolCallId, pointer.id);
  return {
    text,
    textBytes,
    data: {
      id: pointer.id,
      kind: 'spill',
      totalBytes: pointer.bytes,
      shown,
      ...(nextOffset === undefined ? {} : { nextOffset }),
      ephemeral: action.ephemeral,
      sha256: pointer.sha256,
      source: read.source,
    },
    mutated,
  };
}

/** A spilled item read and verified, or a refusal naming the id. */
export async function readSpill(session: ActionContext, id: string, verb: string): Promise<SpillRead> {
  const read = await session.spills.read(id, session.index, session.evidenceStore, session.sessionId);
  if (read === undefined) throw unknownId(session, id, verb);
  return read;
}

/** One spilled item to scan, in transcript order. */
export interface LocatedSpill {
  readonly id: string;
  readonly entryId: string;
  readonly bytes: Uint8Array;
  /** Where the item's bytes begin in its peek text (the header line's length). */
  readonly documentOffset: number;
}

/**
 * The spilled items `search` scans: those shown raw in the window. An item inside a fold is
 * already scanned in the fold's exact source, so it is not reported twice. With `within`
 * naming a spill, only that item.
 */
export async function* spillsToSearch(
  session: ActionContext,
  within: string | undefined,
): AsyncGenerator<LocatedSpill> {
  if (within !== undefined) {
    const read = await readSpill(session, within, 'search.within');
    yield {
      id: read.pointer.id,
      entryId: session.spills.entryOf(within) ?? '',
      bytes: read.bytes,
      documentOffset: spillPeekHeaderBytes(read.pointer),
    };
    return;
  }
  for (const { position, part } of session.spills.spilledParts(session.index)) {
    if (session.lattice.enclosing(position).length > 0) continue;
    const read = await readSpill(session, part.pointer.id, 'search');
    yield {
      id: part.pointer.id,
      entryId: session.index.entries[position]!.id,
      bytes: read.bytes,
      documentOffset: spillPeekHeaderBytes(read.pointer),
    };
  }
}
