// Pieces are whole UTF-8 strings (headers, verified blobs), so a piece boundary is always a
// code point boundary and each piece can be decoded on its own.
const utf8 = new TextDecoder('utf-8');

/**
 * A document kept as the pieces it was read in. A peek returns one byte range of it as text;
 * joining the pieces first would copy every byte once more than hashing and decoding them
 * already cost, for a document that is then sliced anyway.
 */
export class PieceDocument {
  readonly length: number;
  private readonly starts: number[] = [];

  constructor(private readonly pieces: readonly Uint8Array[]) {
    let length = 0;
    for (const piece of pieces) {
      this.starts.push(length);
      length += piece.length;
    }
    this.length = length;
  }

  /** Move a byte offset back to the start of the UTF-8 code point it falls in. */
  codePointStart(offset: number): number {
    let position = Math.max(0, Math.min(offset, this.length));
    while (position > 0 && position < this.length && (this.byteAt(position) & 0xc0) === 0x80) position -= 1;
    return position;
  }

  /** The text of bytes [from, to); both must be code point starts (see `codePointStart`). */
  text(from = 0, to = this.length): string {
    // `+` keeps the pieces as one rope; `join` would copy every char into a new flat string.
    let text = '';
    for (let index = this.pieceAt(from); index < this.pieces.length && this.starts[index]! < to; index += 1) {
      const start = this.starts[index]!;
      const piece = this.pieces[index]!;
      const begin = Math.max(from, start) - start;
      const end = Math.min(to, start + piece.length) - start;
      if (begin < end) text += utf8.decode(begin === 0 && end === piece.length ? piece : piece.subarray(begin, end));
    }
    return text;
  }

  /** All bytes in one buffer (benchmarks compare against hashing exactly these). */
  bytes(): Buffer {
    return Buffer.concat(this.pieces);
  }

  private byteAt(offset: number): number {
    const index = this.pieceAt(offset);
    return this.pieces[index]![offset - this.starts[index]!]!;
  }

  /** The piece holding byte `offset` (binary search: a deep fold has thousands of pieces). */
  private pieceAt(offset: number): number {
    let low = 0;
    let high = this.pieces.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle]! <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
