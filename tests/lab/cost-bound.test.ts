import { describe, expect, it } from 'vitest';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import type { BoundTrajectory } from '../../lab/bound/bound-trajectory.ts';
import { cheapestSchedule } from '../../lab/bound/cost-bound.ts';
import { type BoundPricing, billSchedule, deepestCuts } from '../../lab/bound/schedule-bill.ts';
import { DEFAULT_CACHE_RULES, type PromptMessage } from '../../lab/provider/prefix-cache-simulator.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';

/** A small deterministic generator, so every case is the same on every run. */
function generator(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state % below;
  };
}

/** Every wire message of a role starts with the same few tokens, as the wire's JSON does. */
const WIRE_HEAD = [9, 8, 7, 6, 5];

function element(digest: string, length: number, random: (below: number) => number): PromptMessage {
  const tokens = Uint32Array.from({ length }, (_, position) =>
    position < WIRE_HEAD.length ? WIRE_HEAD[position]! : 100 + random(50_000),
  );
  return { digest, tokens };
}

/** A session of `requests` requests that each append one or two entries, with idle gaps and cold starts. */
function smallSession(seed: number, requests: number, entryTokens: readonly [number, number]): BoundTrajectory {
  const random = generator(seed);
  const fixed = [
    element(`system-${seed}`, 100 + random(1_200), random),
    element(`tools-${seed}`, 200 + random(200), random),
  ];
  const entries: PromptMessage[] = [];
  const readChars: number[] = [];
  const rows: BoundTrajectory['requests'][number][] = [];
  let now = 0;
  for (let request = 0; request < requests; request += 1) {
    const added = 1 + random(2);
    for (let count = 0; count < added; count += 1) {
      const length = entryTokens[0] + random(entryTokens[1] - entryTokens[0]);
      entries.push(element(`entry-${seed}-${entries.length}`, length, random));
      readChars.push(length * (3 + random(3)));
    }
    // Mostly 15 s apart; now and then past the cache's 300 s, or emptied as a replay's cold start.
    now += random(5) === 0 ? 301 + random(600) : 15;
    rows.push({
      entries: entries.length,
      nowSeconds: now,
      cold: random(9) === 0,
      output: 20 + random(400),
    });
  }
  return { fixed, entries, readChars, requests: rows };
}

/**
 * The same session where the provider, now and then, lost all but a prefix of what it held
 * (a replayed recording's partial loss): inside the fixed block, or past it into the entries.
 */
function withPartialLosses(trajectory: BoundTrajectory, seed: number): BoundTrajectory {
  const random = generator(seed + 7_777);
  const fixedTokens = trajectory.fixed.reduce((sum, part) => sum + part.tokens.length, 0);
  const requests = trajectory.requests.map((request) =>
    request.cold || random(3) !== 0 ? request : { ...request, keptTokens: 1 + random(fixedTokens + 1_500) },
  );
  return { ...trajectory, requests };
}

const LONG_TIER_LIST: PriceList = {
  name: 'test-long-tier',
  base: { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 },
  longContext: { aboveTokens: 9_000, rates: { input: 6, cacheRead: 0.6, cacheWrite: 7.5, output: 22.5 } },
  cacheLifetimeSeconds: 300,
};

function pricing(priceList: PriceList, floorTokens: number, tokenScale = 1): BoundPricing {
  return {
    priceList,
    cacheRules: DEFAULT_CACHE_RULES,
    tokenScale,
    budgetTokens: 14_000,
    capTokens: 18_000,
    floorTokens,
  };
}

/** The cheapest of every schedule: every non-decreasing cut within the floor, each billed through one cache. */
function bruteForce(trajectory: BoundTrajectory, rules: BoundPricing): { costUsd: number; schedules: number } {
  const deepest = deepestCuts(trajectory, rules);
  let best = Number.POSITIVE_INFINITY;
  let schedules = 0;
  const cuts: number[] = [];
  const extend = (request: number, lowest: number): void => {
    if (request === trajectory.requests.length) {
      schedules += 1;
      best = Math.min(best, billSchedule(trajectory, rules, cuts).costUsd);
      return;
    }
    for (let cut = lowest; cut <= deepest[request]!; cut += 1) {
      cuts.push(cut);
      extend(request + 1, cut);
      cuts.pop();
    }
  };
  extend(0, 0);
  return { costUsd: best, schedules };
}

const LARGE = [150, 2_650] as const;
const SMALL = [10, 300] as const;

describe('the cost bound', () => {
  const cases = [
    { name: 'ledger prices', priceList: PRICE_LISTS['gpt-5.6-ledger']!, floorTokens: 1_500, entryTokens: LARGE },
    {
      name: 'a cache-write premium',
      priceList: PRICE_LISTS['claude-sonnet-3-7']!,
      floorTokens: 2_000,
      entryTokens: LARGE,
    },
    {
      name: 'a long-context tier the windows cross',
      priceList: LONG_TIER_LIST,
      floorTokens: 1_000,
      entryTokens: LARGE,
    },
    {
      name: 'windows near the cache minimum',
      priceList: PRICE_LISTS['gpt-5.6-ledger']!,
      floorTokens: 60,
      entryTokens: LARGE,
    },
    // Entries this small against the cache's 128-token steps: there a commit short of the deepest cut can pay.
    { name: 'small entries', priceList: PRICE_LISTS['gpt-5.6-ledger']!, floorTokens: 200, entryTokens: SMALL },
    // A replay's provider counted 1.13 of its tokens per lab token: every part rounds once more.
    {
      name: 'small entries and a token scale',
      priceList: PRICE_LISTS['claude-sonnet-3-7']!,
      floorTokens: 200,
      entryTokens: SMALL,
      tokenScale: 1.13,
    },
    // A replay's provider that lost its cache but for a prefix, as a recording showed.
    {
      name: 'partial provider losses',
      priceList: PRICE_LISTS['claude-sonnet-3-7']!,
      floorTokens: 1_000,
      entryTokens: LARGE,
      partialLosses: true,
    },
  ];
  it.each(cases)(
    'is exact against every schedule of small sessions, with $name',
    ({ priceList, floorTokens, entryTokens, tokenScale, partialLosses }) => {
      let enumerated = 0;
      for (let seed = 1; seed <= 12; seed += 1) {
        const session = smallSession(seed * 31 + floorTokens, 4 + (seed % 6), entryTokens);
        const trajectory = partialLosses === true ? withPartialLosses(session, seed) : session;
        const rules = pricing(priceList, floorTokens, tokenScale);
        const exhaustive = bruteForce(trajectory, rules);
        const schedule = cheapestSchedule(trajectory, rules);
        enumerated += exhaustive.schedules;
        expect(schedule.costUsd, `seed ${seed}`).toBeCloseTo(exhaustive.costUsd, 12);
        expect(billSchedule(trajectory, rules, schedule.cuts).costUsd).toBeCloseTo(schedule.costUsd, 12);
      }
      // The cases really branch: thousands of schedules, not one or two per session.
      expect(enumerated).toBeGreaterThan(2_000);
    },
  );

  it('never folds into the floor, and folds inside it only where the floor alone is over the budget', () => {
    const trajectory = smallSession(7, 10, LARGE);
    const rules = pricing(PRICE_LISTS['gpt-5.6-ledger']!, 1_500);
    const deepest = deepestCuts(trajectory, rules);
    trajectory.requests.forEach(({ entries }, request) => {
      let kept = 0;
      for (let position = deepest[request]!; position < entries; position += 1) kept += trajectory.readChars[position]!;
      expect(kept).toBeGreaterThanOrEqual(
        Math.min(
          1_500 * 4,
          trajectory.readChars.slice(0, entries).reduce((a, b) => a + b, 0),
        ),
      );
    });
    const tight = { ...rules, budgetTokens: 1_500 };
    expect(deepestCuts(trajectory, tight).at(-1)).toBe(trajectory.requests.at(-1)!.entries);
    expect(() =>
      billSchedule(
        trajectory,
        rules,
        deepest.map((cut) => cut + 1),
      ),
    ).toThrow(/floor/);
  });
});
