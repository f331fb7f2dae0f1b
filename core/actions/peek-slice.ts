import { FoldError } from '../fold-error.ts';
import type { EngineMemory } from '../state/engine-memory.ts';
import { PEEK_DEFAULT_BYTES } from './action-arguments.ts';
import type { PieceDocument } from './piece-document.ts';

/** Share of an unsliced, oversized peek given to its head; the rest shows the tail. */
const HEAD_SHARE = 0.6;

/** One bounded view of a peek document (docs/behaviour.md B4.2). */
export interface PeekSlice {
  readonly text: string;
  readonly nextOffset: number | undefined;
  readonly shown: { readonly from: number; readonly to: number };
  /**
   * The UTF-8 length of `text`, counted from the byte ranges cut and the short lines added:
   * the answer's size for telemetry without encoding a text of up to a megabyte again.
   */
  readonly textBytes: number;
}

/**
 * Cut the part of `document` a peek shows: the slice at `offset` when one is asked for, the
 * whole document when it fits the byte budget, else its head and tail with the omitted middle
 * named and the offset to read it from. Cuts fall on UTF-8 code point starts.
 */
export function slicePeek(
  document: PieceDocument,
  id: string,
  request: { readonly offset?: number; readonly bytes?: number },
): PeekSlice {
  const total = document.length;
  const budget = request.bytes ?? PEEK_DEFAULT_BYTES;
  if (request.offset !== undefined) {
    if (request.offset > total) {
      throw new FoldError(
        'ACTION.INVALID_ARGUMENT',
        `peek.offset ${request.offset} is past the end of ${id} (${total} bytes)`,
        { details: { id, total } },
      );
    }
    const from = document.codePointStart(request.offset);
    const to = document.codePointStart(Math.min(total, from + budget));
    const trailer =
      to < total
        ? `\n[bytes ${from}-${to} of ${total}; continue with {"action":"peek","id":"${id}","offset":${to}}]`
        : `\n[bytes ${from}-${to} of ${total}; end of source]`;
    return {
      text: document.text(from, to) + trailer,
      nextOffset: to < total ? to : undefined,
      shown: { from, to },
      textBytes: to - from + Buffer.byteLength(trailer),
    };
  }
  if (total <= budget)
    return { text: document.text(), nextOffset: undefined, shown: { from: 0, to: total }, textBytes: total };
  const headEnd = document.codePointStart(Math.floor(budget * HEAD_SHARE));
  const tailStart = document.codePointStart(total - (budget - headEnd));
  const omitted = tailStart - headEnd;
  const omission = `\n[${omitted} exact source bytes omitted (bytes ${headEnd}-${tailStart}); read them with {"action":"peek","id":"${id}","offset":${headEnd}}]\n`;
  const text = `${document.text(0, headEnd)}${omission}${document.text(tailStart)}`;
  return {
    text,
    nextOffset: headEnd,
    shown: { from: 0, to: total },
    textBytes: headEnd + Buffer.byteLength(omission) + (total - tailStart),
  };
}

/**
 * Remember an ephemeral peek (docs/behaviour.md B4.2) so its result is given back once the model has answered.
 * Returns whether the memory changed.
 */
export function rememberEphemeralPeek(
  memory: EngineMemory,
  ephemeral: boolean,
  toolCallId: string | undefined,
  id: string,
): boolean {
  if (!ephemeral || toolCallId === undefined) return false;
  memory.rememberPeek(toolCallId, id);
  return true;
}
