import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import type { SearchHit } from '../../core/actions/search-action.ts';
import { FoldError } from '../../core/fold-error.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { matchBudget, matchInWorker, SEARCH_REGEX_TIME_LIMIT_MS } from '../../core/search/regex-worker.ts';
import { compileSearch } from '../../core/search/search-pattern.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { projectFoldedReads } from '../../testing/folded-reads.ts';
import { seededRandom, sourceLikeText } from '../../testing/synthetic-session.ts';
import { serialize } from '../../testing/window-checks.ts';

/**
 * Patterns that held the event loop for seconds to minutes over about 2 MB of folded text.
 * Each ends in a class rather than one char: a char the text lacks would be a required
 * literal, and text without it is skipped before any matching, so the pattern would cost
 * nothing to refuse (docs/behaviour.md B4, `search`).
 */
const HOSTILE_PATTERNS = [
  `${'.'.repeat(500)}[QZ]`,
  `${'.'.repeat(100)}[QZ]`,
  '(\\w+\\s?)+[!?]',
  `(?:${[...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'].join('|')})+[!?]`,
];

let runtime: FoldRuntime;
let foldedBytes = 0;

/** A runtime whose history is `steps` folded reads of 20 KB each. */
async function foldedRuntime(sessionId: string, steps: number): Promise<FoldRuntime> {
  const opened = await FoldRuntime.open({
    sessionId,
    settings: resolveSettings({ providerInputBudget: 200_000, scheduling: 'band' }),
    foldStore: new MemoryFoldStore(),
    costModel: createCharsCostModel(),
  });
  await projectFoldedReads(opened, { seed: 29, steps });
  return opened;
}

beforeAll(async () => {
  runtime = await foldedRuntime('search-bound', 120);
  const nowhere = await runtime.act({ action: 'search', pattern: 'text found nowhere' });
  foldedBytes = (nowhere.data as { bytesScanned: number }).bytesScanned;
}, 120_000);

function windowState(): string {
  return JSON.stringify({
    memory: runtime.view.memory.snapshot(runtime.view.lattice.expanded, []),
    frozen: serialize(runtime.view.frozen ?? []),
    folds: runtime.view.lattice.size,
  });
}

/** Run `search` while a 5 ms interval counts its ticks: a blocked event loop ticks 0 times. */
async function searchWhileTicking(
  call: Record<string, unknown>,
  on: FoldRuntime = runtime,
): Promise<{ outcome: unknown; ticks: number }> {
  let ticks = 0;
  const interval = setInterval(() => (ticks += 1), 5);
  try {
    const outcome = await on.act(call).then(
      (answer) => answer,
      (error: unknown) => error,
    );
    return { outcome, ticks };
  } finally {
    clearInterval(interval);
  }
}

describe('no search pattern holds the event loop (docs/behaviour.md B4)', () => {
  it.each(HOSTILE_PATTERNS.slice(1).map((pattern) => [pattern.slice(0, 24), pattern]))(
    '%s… over 2 MB folded is answered or refused by the bound, with timers firing throughout',
    async (_label, pattern) => {
      expect(foldedBytes).toBeGreaterThan(2_000_000);
      const before = windowState();
      const { outcome, ticks } = await searchWhileTicking({ action: 'search', pattern, regex: true });
      expect(ticks).toBeGreaterThan(0);
      if (FoldError.isInstance(outcome)) {
        expect(outcome.code).toBe('ACTION.UNSAFE_PATTERN');
        expect(outcome.message).toContain(`${SEARCH_REGEX_TIME_LIMIT_MS / 1000} s`);
        expect(outcome.details).toMatchObject({ limitMs: SEARCH_REGEX_TIME_LIMIT_MS });
      } else {
        expect((outcome as { action: string }).action).toBe('search');
      }
      expect(windowState()).toBe(before);
    },
    60_000,
  );

  it('the slowest of them is refused, naming the bound, and the search after it answers as before', async () => {
    // Over the 2 MB above, a fast idle machine can finish this pattern just inside the bound;
    // over three times that, its work is well past the bound wherever the suite runs.
    const large = await foldedRuntime('search-bound-large', 360);
    const { outcome, ticks } = await searchWhileTicking(
      { action: 'search', pattern: HOSTILE_PATTERNS[0], regex: true },
      large,
    );
    expect(ticks).toBeGreaterThan(0);
    expect(FoldError.isInstance(outcome) && outcome.code).toBe('ACTION.UNSAFE_PATTERN');
    // The pattern is what is slow here, not the size of the text, and the refusal says so.
    expect((outcome as FoldError).details).toMatchObject({ reason: 'pattern' });
    const answer = await large.act({ action: 'search', pattern: 'socket (parse|retry)', regex: true, limit: 3 });
    const hits = (answer.data as { hits: SearchHit[]; more: boolean }).hits;
    expect(hits).toHaveLength(3);
    expect(hits.every((hit) => /socket (parse|retry)/.test(hit.excerpt))).toBe(true);
    expect((answer.data as { more: boolean }).more).toBe(true);
  }, 120_000);
});

describe('matching on the worker', () => {
  const text = sourceLikeText(seededRandom(3), 200_000, 'y');

  it('finds exactly what exec finds on the host, and stops at the wanted count', async () => {
    for (const source of ['[a-z]+_\\d', '\\b', 'y', '(\\w+\\s?)+;']) {
      const expression = new RegExp(source, 'g');
      const expected = [...text.matchAll(expression)].flatMap((match) => [match.index, match[0].length]);
      const linear = compileSearch({ pattern: source, regex: true, ignoreCase: false }).expression;
      const [found] = await matchInWorker(linear, [text], Number.MAX_SAFE_INTEGER, matchBudget(), source);
      expect(found).toEqual(expected);
      const [firstThree] = await matchInWorker(linear, [text], 3, matchBudget(), source);
      expect(firstThree).toEqual(expected.slice(0, 6));
    }
  }, 60_000);

  it('a budget that runs out refuses by name and stops the worker', async () => {
    const pattern = `${'.'.repeat(500)}Q`;
    const budget = matchBudget(50);
    const error = await matchInWorker(
      compileSearch({ pattern, regex: true, ignoreCase: false }).expression,
      [text.repeat(10)],
      1,
      budget,
      pattern,
    ).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(FoldError.isInstance(error) && error.code).toBe('ACTION.UNSAFE_PATTERN');
    expect((error as FoldError).message).toContain('0.05 s');
    expect(budget.remainingMs).toBeLessThanOrEqual(0);
  }, 30_000);
});
