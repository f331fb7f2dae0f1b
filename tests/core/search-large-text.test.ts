import { describe, expect, it } from 'vitest';
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import type { SearchHit } from '../../core/actions/search-action.ts';
import { FoldError } from '../../core/fold-error.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import {
  matchBudget,
  outOfTime,
  SEARCH_FAIR_UNITS,
  SEARCH_REGEX_TIME_LIMIT_MS,
  SEARCH_STRETCH_UNITS,
} from '../../core/search/regex-worker.ts';
import { requiredLiteral } from '../../core/search/required-literal.ts';
import { compileSearch } from '../../core/search/search-pattern.ts';
import { matchByStretches, SEARCH_MATCH_REACH } from '../../core/search/text-stretches.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import {
  assistantEntry,
  seededRandom,
  sourceLikeText,
  toolResultEntry,
  userEntry,
} from '../../testing/synthetic-session.ts';

/** Every match a global exec over the whole text finds, on the host's own engine: the answer key. */
function wholeTextMatches(source: string, text: string): number[] {
  return [...text.matchAll(new RegExp(source, 'g'))].flatMap((match) => [match.index, match[0].length]);
}

/** `filler` with `insert` written over it at `at`. */
function writeAt(filler: string, at: number, insert: string): string {
  return filler.slice(0, at) + insert + filler.slice(at + insert.length);
}

/** Plain text of `units` code units (lower-case words, spaces, newlines), with `inserts` written in. */
function textWith(units: number, inserts: readonly [number, string][]): string {
  let text = sourceLikeText(seededRandom(11), units, 'x')
    .replace(/[0-9;]/g, 'q')
    .slice(0, units);
  for (const [at, insert] of inserts) text = writeAt(text, at, insert);
  return text;
}

async function byStretches(source: string, text: string): Promise<number[]> {
  const compiled = compileSearch({ pattern: source, regex: true, ignoreCase: false });
  return matchByStretches(text, { compiled, pattern: source, wanted: Number.MAX_SAFE_INTEGER, budget: matchBudget() });
}

describe('a regular expression over a text longer than a stretch (docs/behaviour.md B4, search)', () => {
  const border = SEARCH_STRETCH_UNITS;
  const sliceEnd = SEARCH_STRETCH_UNITS + SEARCH_MATCH_REACH;
  const text = textWith(3 * SEARCH_STRETCH_UNITS + 5_000, [
    [0, 'Start'],
    // Its digits run across the first stretch's border, one of them right at it.
    [border - 10, 'needle-12345678'],
    [border + 100, ' 1234567 '],
    [2 * border - 1, 'needle-99'],
    // A word that ends exactly where the first slice is cut, but goes on in the whole text.
    [sliceEnd - 3, 'foobar'],
    [sliceEnd + 40, 'foo\n'],
    // A run that crosses where the second slice is cut and ends at a newline, not at the end.
    [2 * border - 10, `Z${'a'.repeat(SEARCH_MATCH_REACH + 100)}\n`],
    [3 * SEARCH_STRETCH_UNITS + 4_996, 'Zfoo'],
  ]);

  it.each([
    ['needle-\\d+', 'a match across a stretch border'],
    ['[0-9]{7}', 'a pattern with no required literal'],
    ['^Start', 'an anchor at the start of the text'],
    ['foo$', 'an anchor at the end'],
    ['[A-Z][a-z ]*$', 'an anchor at the end, never where a slice is cut'],
    ['foo\\b', 'a word boundary where a slice is cut'],
    ['\\B[0-9]', 'no word boundary at the start of a stretch'],
    ['\\b[0-9]', 'a word boundary before a digit'],
    ['e\\s', 'many short matches'],
  ])(
    '%s: the matches an exec over the whole text finds (%s)',
    async (source) => {
      expect(text.length).toBeGreaterThan(3 * SEARCH_STRETCH_UNITS);
      const expected = wholeTextMatches(source, text);
      expect(expected.length, 'the text holds matches of the pattern').toBeGreaterThan(0);
      expect(await byStretches(source, text)).toEqual(expected);
    },
    60_000,
  );

  it('stops at the wanted count', async () => {
    const compiled = compileSearch({ pattern: 'e\\s', regex: true, ignoreCase: false });
    const found = await matchByStretches(text, { compiled, pattern: 'e\\s', wanted: 5, budget: matchBudget() });
    expect(found).toEqual(wholeTextMatches('e\\s', text).slice(0, 10));
  });

  it('a text without the required literal is never handed to the linear engine', async () => {
    const budget = matchBudget();
    const compiled = compileSearch({ pattern: 'xyz\\d', regex: true, ignoreCase: false });
    expect(await matchByStretches(text, { compiled, pattern: 'xyz\\d', wanted: 10, budget })).toEqual([]);
    expect(budget.matchedUnits).toBe(0);
  });
});

describe('the required literal of an expression', () => {
  it.each([
    ['xyz', 'xyz'],
    ['needle-\\d+', 'needle-'],
    ['socket (parse|retry)', 'socket '],
    ['ab?c', 'a'],
    ['\\.json"', '.json"'],
    ['x{0,3}yz', 'yz'],
  ])('%s requires %s', (source, literal) => {
    expect(requiredLiteral(source)).toBe(literal);
  });

  it.each(['a|b', '(x)+|y', '\\d+', 'foo{', '\\u0041'])('%s requires nothing it can be sure of', (source) => {
    expect(requiredLiteral(source)).toBeUndefined();
  });
});

describe('a refusal says whether the pattern or the text was the reason', () => {
  it('an expression that covered a fair amount of text in the bound blames the size', () => {
    const budget = { ...matchBudget(), remainingMs: 0, matchedUnits: 3 * SEARCH_FAIR_UNITS, largestTextUnits: 50e6 };
    const refusal = outOfTime(budget, '[0-9]{7}');
    expect(refusal.code).toBe('ACTION.SEARCH_TOO_LARGE');
    expect(refusal.message).toMatch(/the text is too large .*the expression is not at fault/);
    expect(refusal.details).toMatchObject({ reason: 'text-size', limitMs: SEARCH_REGEX_TIME_LIMIT_MS });
  });

  it('one that covered little blames the pattern', () => {
    const budget = { ...matchBudget(), remainingMs: 0, matchedUnits: SEARCH_FAIR_UNITS / 8, largestTextUnits: 2e6 };
    const refusal = outOfTime(budget, '.{500}Q');
    expect(refusal.code).toBe('ACTION.UNSAFE_PATTERN');
    expect(refusal.details).toMatchObject({ reason: 'pattern' });
  });
});

describe('a session holding one tool result of 40 MB', () => {
  it('answers a regular expression with a required literal, and refuses one without only for size', async () => {
    const runtime = await FoldRuntime.open({
      sessionId: 'large-result',
      settings: resolveSettings({ providerInputBudget: 200_000 }),
      foldStore: new MemoryFoldStore(),
      evidenceStore: new MemoryEvidenceStore(),
      costModel: createCharsCostModel(),
    });
    const body = textWith(40 * 1024 * 1024, [[40 * 1024 * 1024 - 3_000, 'needle-4242 ']]);
    const call = { id: 'c1', name: 'read', arguments: { path: 'dump.log' } };
    await runtime.project([
      userEntry('u0', 'read the dump'),
      assistantEntry('a1', 'reading', [call]),
      toolResultEntry('r1', call.id, 'read', body),
      assistantEntry('a2', 'read it'),
    ]);
    const nowhere = await runtime.act({ action: 'search', pattern: 'xyz', regex: true });
    expect((nowhere.data as { hits: SearchHit[] }).hits).toEqual([]);
    const found = await runtime.act({ action: 'search', pattern: 'needle-\\d+', regex: true });
    const hits = (found.data as { hits: SearchHit[] }).hits;
    expect(hits).toHaveLength(1);
    expect(hits[0]!.excerpt).toContain('needle-4242');
    // No literal to look for first: the linear engine walks the whole text, which may take
    // longer than the bound; if it does, the refusal names the size, not the pattern.
    const digits = await runtime.act({ action: 'search', pattern: '[0-9]{7}', regex: true }).then(
      (answer) => answer,
      (error: unknown) => error,
    );
    if (FoldError.isInstance(digits)) {
      expect(digits.code).toBe('ACTION.SEARCH_TOO_LARGE');
      expect(digits.details).toMatchObject({ reason: 'text-size' });
    } else {
      expect((digits as { data: { hits: SearchHit[] } }).data.hits).toEqual([]);
    }
    await runtime.dispose();
  }, 120_000);
});
