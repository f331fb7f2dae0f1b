import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sameJson } from '../../adapters/hosts/pi/landing/same-json.ts';

/** Values as messages carry them, plus what JSON writes oddly: undefined, NaN, nested arrays. */
const messageLike = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    fc.string(),
    fc.integer(),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.constantFrom('type', 'text', 'id', 'name', 'arguments', 'data'), tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('sameJson', () => {
  it('agrees with comparing JSON.stringify texts on random message-like values', () => {
    fc.assert(
      fc.property(messageLike, messageLike, (a, b) => {
        expect(sameJson(a, b)).toBe(JSON.stringify(a) === JSON.stringify(b));
        expect(sameJson(a, structuredClone(a))).toBe(true);
      }),
      { numRuns: 2000, seed: 7 },
    );
  });

  it('tells apart what JSON tells apart, and only that', () => {
    expect(sameJson([{ type: 'text', text: 'a' }], [{ type: 'text', text: 'a' }])).toBe(true);
    expect(sameJson([{ type: 'text', text: 'a' }], [{ text: 'a', type: 'text' }])).toBe(false);
    expect(sameJson({ a: 1, b: undefined }, { a: 1 })).toBe(true);
    expect(sameJson([undefined], [null])).toBe(true);
    expect(sameJson([Number.NaN], [null])).toBe(true);
    expect(sameJson({ at: new Date(0) }, { at: '1970-01-01T00:00:00.000Z' })).toBe(true);
    expect(sameJson('a', ['a'])).toBe(false);
    expect(sameJson([1, 2], [1, 2, 3])).toBe(false);
    expect(sameJson({}, [])).toBe(false);
  });
});
