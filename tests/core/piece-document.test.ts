import { describe, expect, it } from 'vitest';
import { slicePeek } from '../../core/actions/peek-slice.ts';
import { PieceDocument } from '../../core/actions/piece-document.ts';
import { codePointStart } from '../../core/util/code-points.ts';
import { seededRandom } from '../../testing/synthetic-session.ts';

const ALPHABET = ['a', 'z', ' ', '\n', 'é', 'ß', '€', '中', '😀', '\u0000', '"'];

function randomPieces(random: () => number): Uint8Array[] {
  const count = 1 + Math.floor(random() * 8);
  return Array.from({ length: count }, () => {
    const length = Math.floor(random() * 40);
    return Buffer.from(Array.from({ length }, () => ALPHABET[Math.floor(random() * ALPHABET.length)]!).join(''));
  });
}

describe('PieceDocument: a peek document read without joining its pieces', () => {
  it('gives the same code point starts and the same text as the joined bytes, for any range', () => {
    const random = seededRandom(41);
    for (let trial = 0; trial < 300; trial += 1) {
      const pieces = randomPieces(random);
      const document = new PieceDocument(pieces);
      const joined = Buffer.concat(pieces);
      expect(document.length).toBe(joined.length);
      expect(document.bytes().equals(joined)).toBe(true);
      expect(document.text()).toBe(joined.toString('utf8'));
      for (let probe = 0; probe < 10; probe += 1) {
        const a = codePointStart(joined, Math.floor(random() * (joined.length + 3)));
        const b = codePointStart(joined, Math.floor(random() * (joined.length + 3)));
        expect(document.codePointStart(a)).toBe(a);
        const [from, to] = a <= b ? [a, b] : [b, a];
        expect(document.text(from, to)).toBe(joined.subarray(from, to).toString('utf8'));
      }
      for (let offset = 0; offset <= joined.length; offset += 1)
        expect(document.codePointStart(offset)).toBe(codePointStart(joined, offset));
    }
  });
});

describe('slicePeek counts the bytes of the text it cuts', () => {
  it('textBytes is the UTF-8 length of the text, for the whole document, a head and tail, and any offset', () => {
    const random = seededRandom(43);
    for (let trial = 0; trial < 200; trial += 1) {
      // Pieces long enough that a 1 KiB budget cuts most documents into head and tail.
      const pieces = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
        Buffer.concat(randomPieces(random).concat(randomPieces(random), randomPieces(random))),
      );
      const document = new PieceDocument(pieces);
      const requests = [
        {},
        { bytes: 1_024 },
        { bytes: 16_000 },
        { offset: Math.floor(random() * (document.length + 1)), bytes: 1_024 },
        { offset: document.length },
      ];
      for (const request of requests) {
        const slice = slicePeek(document, 'fold_test', request);
        expect(slice.textBytes, JSON.stringify(request)).toBe(Buffer.byteLength(slice.text));
      }
    }
  });
});
