import { describe, expect, it } from 'vitest';
import { codePointStart, PieceDocument } from '../../core/actions/piece-document.ts';
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
      for (let offset = 0; offset <= joined.length; offset += 1) expect(document.codePointStart(offset)).toBe(codePointStart(joined, offset));
    }
  });
});
