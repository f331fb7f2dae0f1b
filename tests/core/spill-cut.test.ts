import { describe, expect, it } from 'vitest';
import { DEFAULT_SPILL_POLICY } from '../../core/settings/spill-policy.ts';
import { cutAscii, cutEncoded, planSpill } from '../../core/spill/spill-plan.ts';
import { seededRandom, toolResultEntry } from '../../testing/synthetic-session.ts';

const ASCII = ['a', 'Z', '0', ' ', '\n', '\t', '"', '\\', '{', '}', '~', '\u0000', '\u007f'];

describe('a spilled ASCII item is cut on its string exactly as on its UTF-8 bytes', () => {
  it('same SHA-256, byte length, cut offsets, head and tail, for any length and keep size', () => {
    const random = seededRandom(71);
    for (let trial = 0; trial < 400; trial += 1) {
      // Lengths around the keep size too, where the head and tail meet or the tail starts at 0.
      const length = trial < 40 ? trial * 37 : Math.floor(random() * 40_000);
      const content = Array.from({ length }, () => ASCII[Math.floor(random() * ASCII.length)]!).join('');
      const policy = { thresholdBytes: 16_384, keepBytes: [1, 100, 1_000, 4_096, 10_000][trial % 5]! };
      expect(cutAscii(content, policy), `length ${length}, keep ${policy.keepBytes}`).toEqual(
        cutEncoded(content, policy),
      );
    }
  });
});

describe('a spilled result is cut on its bytes whenever it is not all ASCII', () => {
  it('the pointer and the shown head and tail are those of its UTF-8 bytes', () => {
    const random = seededRandom(72);
    const alphabet = [...ASCII, 'é', '€', '中', '😀', '\ud800'];
    for (let trial = 0; trial < 60; trial += 1) {
      const text = Array.from(
        { length: 20_000 + Math.floor(random() * 20_000) },
        () => alphabet[Math.floor(random() * alphabet.length)]!,
      ).join('');
      const plan = planSpill(
        toolResultEntry(`r${trial}`, `c${trial}`, 'read', text),
        DEFAULT_SPILL_POLICY,
        'pi_fold_context',
      )!;
      const part = plan.parts[0]!;
      const cut = cutEncoded(text, DEFAULT_SPILL_POLICY);
      expect({
        sha256: part.pointer.sha256,
        bytes: part.pointer.bytes,
        headBytes: part.pointer.headBytes,
        tailBytes: part.pointer.tailBytes,
      }).toEqual({
        sha256: cut.sha256,
        bytes: cut.bytes,
        headBytes: cut.headEnd,
        tailBytes: cut.bytes - cut.tailStart,
      });
      expect(part.shown.startsWith(`${cut.head}\n`) && part.shown.endsWith(`\n${cut.tail}`)).toBe(true);
    }
  });
});
