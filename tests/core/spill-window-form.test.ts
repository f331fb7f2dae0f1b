import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sourceDigest } from '../../core/commit/plan/planner.ts';
import { DEFAULT_SPILL_POLICY } from '../../core/settings/spill-policy.ts';
import {
  maySpill,
  planSpill,
  spilledResultBytes,
  spillPeekHeader,
  spillPeekHeaderBytes,
} from '../../core/spill/spill-plan.ts';
import { sha256Hex, sha256HexOfLines, stableStringify } from '../../core/util/hashing.ts';
import { seededRandom, toolResultEntry } from '../../testing/synthetic-session.ts';

const ALPHABET = ['a', 'Z', '0', ' ', '\n', '"', '\\', '{', '\u0000', 'é', '€', '中', '😀'];

function randomText(random: () => number, length: number, alphabet = ALPHABET): string {
  return Array.from({ length }, () => alphabet[Math.floor(random() * alphabet.length)]!).join('');
}

describe("a spilled result's window form is its stableStringify serialisation", () => {
  it('the same bytes for ASCII and other texts, with and without a tool name', () => {
    const random = seededRandom(91);
    for (let trial = 0; trial < 60; trial += 1) {
      const text = randomText(
        random,
        17_000 + Math.floor(random() * 20_000),
        trial % 2 === 0 ? ALPHABET.slice(0, 8) : ALPHABET,
      );
      const entry = {
        ...toolResultEntry(`r${trial}`, `c${trial}`, 'read', text),
        ...(trial % 3 === 0 ? { toolName: undefined } : {}),
      };
      const plan = planSpill(entry, DEFAULT_SPILL_POLICY, 'pi_fold_context')!;
      const part = plan.parts[0]!;
      const expected = stableStringify({
        role: 'toolResult',
        toolCallId: entry.toolCallId,
        toolName: entry.toolName,
        content: [{ type: 'text', text: part.shown }],
        spilled: [part.pointer],
      });
      expect(plan.bytes, `trial ${trial}`).toBe(expected);
      expect(spilledResultBytes(entry, part)).toBe(expected);
      // The pointer line's peek offset lands on the first byte the head left out.
      const header = spillPeekHeader(part.pointer);
      expect(spillPeekHeaderBytes(part.pointer)).toBe(header.length);
      expect(part.shown).toContain(`"offset":${header.length + part.pointer.headBytes}}`);
    }
  });

  it('a result just over the threshold in bytes but not in chars is spilled; one at the threshold is not', () => {
    const wide = '€'.repeat(Math.ceil((DEFAULT_SPILL_POLICY.thresholdBytes + 1) / 3));
    expect(
      planSpill(toolResultEntry('w', 'cw', 'read', wide), DEFAULT_SPILL_POLICY, 'pi_fold_context')?.parts[0]?.pointer
        .bytes,
    ).toBe(Buffer.byteLength(wide));
    const exact = 'a'.repeat(DEFAULT_SPILL_POLICY.thresholdBytes);
    expect(
      planSpill(toolResultEntry('e', 'ce', 'read', exact), DEFAULT_SPILL_POLICY, 'pi_fold_context'),
    ).toBeUndefined();
  });
});

describe('maySpill, the length test before a plan', () => {
  it('refuses only entries planSpill does not spill, around the threshold, for results and arguments', () => {
    const random = seededRandom(17);
    const policy = { ...DEFAULT_SPILL_POLICY, thresholdBytes: 3_000, keepBytes: 600 };
    let refused = 0;
    let spilled = 0;
    for (let trial = 0; trial < 300; trial += 1) {
      const text = randomText(random, Math.floor(random() * 4_000), trial % 2 === 0 ? ALPHABET.slice(0, 4) : ALPHABET);
      const entry =
        trial % 3 === 0
          ? {
              id: `a${trial}`,
              role: 'assistant' as const,
              text: '',
              bytes: '{}',
              toolCalls: [
                { id: `c${trial}`, name: 'write', argumentsJson: JSON.stringify({ path: 'x', content: text }) },
              ],
            }
          : toolResultEntry(`r${trial}`, `c${trial}`, 'read', text);
      const plan = planSpill(entry, policy, 'pi_fold_context');
      if (!maySpill(entry, policy)) {
        refused += 1;
        expect(plan, `trial ${trial}`).toBeUndefined();
      }
      if (plan !== undefined) spilled += 1;
    }
    // Both sides of the test are met: some entries are refused by length, some are spilled.
    expect(refused).toBeGreaterThan(50);
    expect(spilled).toBeGreaterThan(50);
  });
});

describe('sha256Hex', () => {
  it('is SHA-256 of the UTF-8 bytes, for strings and bytes alike', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    const random = seededRandom(93);
    for (let trial = 0; trial < 40; trial += 1) {
      const text = randomText(random, Math.floor(random() * (trial % 2 === 0 ? 64 : 30_000)));
      const bytes = Buffer.from(text, 'utf8');
      const expected = createHash('sha256').update(bytes).digest('hex');
      expect(sha256Hex(text), `trial ${trial}`).toBe(expected);
      expect(sha256Hex(new Uint8Array(bytes))).toBe(expected);
    }
  });
});

describe('a fold source digest hashes the lines one by one', () => {
  it('equals the SHA-256 of the joined lines, each ending in a newline', () => {
    const random = seededRandom(92);
    expect(sha256HexOfLines([])).toBe(sha256Hex(''));
    for (let trial = 0; trial < 40; trial += 1) {
      const lines = Array.from({ length: Math.floor(random() * 6) }, () =>
        randomText(random, Math.floor(random() * 3_000)),
      );
      expect(sha256HexOfLines(lines), `trial ${trial}`).toBe(sha256Hex(lines.map((line) => `${line}\n`).join('')));
      const entries = lines.map((line, position) => toolResultEntry(`e${position}`, `c${position}`, 'read', line));
      const joined = entries.map((entry) => `${entry.bytes}\n`).join('');
      expect(sourceDigest(entries)).toEqual({
        sha256: sha256Hex(joined),
        chars: entries.reduce((sum, entry) => sum + entry.bytes.length, 0),
      });
    }
  });
});
