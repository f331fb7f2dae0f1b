import { describe, expect, it } from 'vitest';
import { CacheClock } from '../../core/commit/policy/cache-clock.ts';
import {
  commitPaysOff,
  dollarsPerRequest,
  economicExcess,
  hardCeiling,
  LINE_SAFETY_SHARE,
  schedulingRates,
} from '../../core/commit/policy/cost.ts';
import { InflowTracker } from '../../core/commit/policy/inflow-tracker.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { priceListForModel } from '../../core/pricing/model-windows.ts';
import { DEFAULT_PRICE_LIST, PRICE_LISTS, ratesFor } from '../../core/pricing/price-lists.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { openRuntime } from '../support/drive-session.ts';

const ledger = DEFAULT_PRICE_LIST;

describe('B3.2 the cost arithmetic, from the price list', () => {
  it("the economic excess is √(2·R·(f − r)·g / r) at the list's own rates", () => {
    const rates = schedulingRates(ledger, 100_000);
    expect(rates).toEqual({ cacheRead: ledger.base.cacheRead, fresh: ledger.base.input });
    const [rewrite, inflow] = [40_000, 6_000];
    const expected = Math.sqrt(
      (2 * rewrite * (ledger.base.input - ledger.base.cacheRead) * inflow) / ledger.base.cacheRead,
    );
    expect(economicExcess(rewrite, inflow, rates)).toBeCloseTo(expected, 9);
  });

  it('the excess it returns is where dollars per request are lowest over whole cycles', () => {
    const rates = schedulingRates(ledger, 100_000);
    const [after, rewrite, inflow] = [50_000, 45_000, 5_000];
    const best = economicExcess(rewrite, inflow, rates) / inflow;
    const cost = (cycle: number): number => dollarsPerRequest(after, rewrite, inflow, cycle, rates);
    const cycles = Array.from({ length: 60 }, (_, index) => index + 1);
    const cheapest = cycles.reduce((a, b) => (cost(b) < cost(a) ? b : a));
    // The continuous optimum lies within one request of the cheapest whole cycle.
    expect(Math.abs(cheapest - best)).toBeLessThanOrEqual(1);
    expect(cost(cheapest)).toBeLessThan(cost(cheapest - 3));
    expect(cost(cheapest)).toBeLessThan(cost(cheapest + 3));
  });

  it('a cache-write premium (Anthropic) makes rewrites dearer, so the trigger moves later', () => {
    const sonnet = PRICE_LISTS['claude-sonnet-4-5']!;
    const withWrite = schedulingRates(sonnet, 100_000);
    expect(withWrite.fresh).toBe(sonnet.base.cacheWrite);
    const withoutWrite = { cacheRead: sonnet.base.cacheRead, fresh: sonnet.base.input };
    expect(economicExcess(40_000, 5_000, withWrite)).toBeGreaterThan(economicExcess(40_000, 5_000, withoutWrite));
    expect(economicExcess(40_000, 5_000, withWrite) / economicExcess(40_000, 5_000, withoutWrite)).toBeCloseTo(
      Math.sqrt((sonnet.base.cacheWrite - sonnet.base.cacheRead) / (sonnet.base.input - sonnet.base.cacheRead)),
      9,
    );
  });

  it("commits when the window's excess over the aim reaches the economic excess, not before", () => {
    const rates = schedulingRates(ledger, 100_000);
    const excess = economicExcess(30_000, 4_000, rates);
    const prospect = { afterTokens: 40_000, rewriteTokens: 30_000, inflowTokens: 4_000 };
    expect(commitPaysOff({ ...prospect, windowTokens: 40_000 + Math.floor(excess) - 1 }, rates)).toBe(false);
    expect(commitPaysOff({ ...prospect, windowTokens: 40_000 + Math.ceil(excess) }, rates)).toBe(true);
    // Nothing flowing in: rent never grows, the cost policy alone never commits.
    expect(commitPaysOff({ ...prospect, inflowTokens: 0, windowTokens: 200_000 }, rates)).toBe(false);
  });

  it('the hard ceiling is the lowest of the band top, the budget and the long-context line less its safety share', () => {
    const line = ledger.longContext!.aboveTokens;
    expect(hardCeiling({ budgetTokens: 272_000, priceList: ledger, ceilingShare: 1 })).toBe(
      Math.floor(line * (1 - LINE_SAFETY_SHARE)),
    );
    expect(hardCeiling({ budgetTokens: 272_000, priceList: ledger, ceilingShare: 0.8 })).toBe(272_000 * 0.8);
    expect(hardCeiling({ budgetTokens: 100_000, priceList: PRICE_LISTS['gpt-5.6-flat']!, ceilingShare: 1 })).toBe(
      100_000,
    );
  });

  it('prices above the line at the long-context tier', () => {
    expect(ratesFor(ledger, ledger.longContext!.aboveTokens)).toBe(ledger.base);
    expect(ratesFor(ledger, ledger.longContext!.aboveTokens + 1)).toBe(ledger.longContext!.rates);
  });
});

describe('price lists by model id', () => {
  it('finds a list by recorded model id, with provider prefix and date suffix, and none for an unknown model', () => {
    expect(priceListForModel('claude-sonnet-4-5-20250929')?.name).toBe('claude-sonnet-4-5');
    expect(priceListForModel('anthropic/claude-haiku-4-5')?.name).toBe('claude-haiku-4-5');
    expect(priceListForModel('gpt-5-mini-2025-08-07')?.name).toBe('gpt-5-mini');
    expect(priceListForModel('gpt-5.6-ledger')).toBe(ledger);
    expect(priceListForModel('lab-model')).toBeUndefined();
  });

  it('the default cost model prices each request by its model, a given list serves every model', () => {
    const byModel = createCharsCostModel();
    expect(byModel.priceListFor?.({ id: 'claude-opus-4-5', provider: 'anthropic' })?.name).toBe('claude-opus-4-5');
    expect(byModel.priceListFor?.({ id: 'lab-model' })).toBeUndefined();
    const fixed = createCharsCostModel({ priceList: PRICE_LISTS['gpt-5']! });
    expect(fixed.priceListFor?.({ id: 'claude-opus-4-5' })).toBeUndefined();
    expect(fixed.priceList.name).toBe('gpt-5');
  });

  it("states a cache lifetime where the provider has one (Anthropic 5 minutes), none for Gemini's implicit cache", () => {
    expect(PRICE_LISTS['claude-sonnet-4-5']!.cacheLifetimeSeconds).toBe(300);
    expect(PRICE_LISTS['gemini-2.5-pro']!.cacheLifetimeSeconds).toBeUndefined();
    expect(ledger.cacheLifetimeSeconds).toBeGreaterThan(0);
  });
});

describe('B3.3 the cache clock', () => {
  const lifetime = 300_000;

  it('a gap longer than the lifetime is cold, a shorter one warm, and a warming refresh keeps it warm', () => {
    const clock = new CacheClock();
    clock.requestSent({ requestTime: 1_000_000 });
    expect(clock.coldReason({ requestTime: 1_000_000 + lifetime }, lifetime)).toBeUndefined();
    expect(clock.coldReason({ requestTime: 1_000_000 + lifetime + 1 }, lifetime)).toBe('idle');
    clock.warmed(1_000_000 + 200_000);
    expect(clock.coldReason({ requestTime: 1_000_000 + lifetime + 1 }, lifetime)).toBeUndefined();
    expect(clock.coldReason({ requestTime: 1_000_000 + 200_000 + lifetime + 1 }, lifetime)).toBe('idle');
  });

  it('a model switch is cold whatever the gap; an unknown time or lifetime never is', () => {
    const clock = new CacheClock();
    clock.requestSent({ requestTime: 5, model: { id: 'a', provider: 'p' } });
    expect(clock.coldReason({ requestTime: 6, model: { id: 'b', provider: 'p' } }, lifetime)).toBe('model-switch');
    expect(clock.coldReason({ model: { id: 'a', provider: 'p' } }, lifetime)).toBeUndefined();
    expect(clock.coldReason({ requestTime: 10 ** 12, model: { id: 'a', provider: 'p' } }, undefined)).toBeUndefined();
  });

  it("a lifetime the host reports (Pi's warming TTL) takes precedence over the list's", () => {
    const clock = new CacheClock();
    clock.requestSent({ requestTime: 0 });
    clock.warmed(0, 3_600_000);
    expect(clock.coldReason({ requestTime: lifetime * 2 }, lifetime)).toBeUndefined();
  });
});

describe('inflow per request', () => {
  it('is the mean growth of each request over the window sent before it', () => {
    const inflow = new InflowTracker();
    inflow.observe(10_000, 10_000);
    expect(inflow.perRequest()).toBeUndefined();
    inflow.observe(14_000, 14_000);
    inflow.observe(20_000, 8_000);
    inflow.observe(11_000, 11_000);
    expect(inflow.perRequest()).toBe((4_000 + 6_000 + 3_000) / 3);
  });

  it('a request that appended nothing (a retry, the same transcript projected again) leaves the pace as it was', () => {
    const inflow = new InflowTracker();
    inflow.observe(10_000, 10_000);
    inflow.observe(14_000, 14_000);
    for (let retry = 0; retry < 12; retry += 1) inflow.observe(14_000, 14_000);
    expect(inflow.perRequest()).toBe(4_000);
  });

  it('projecting an unchanged transcript again never makes the cost policy commit', async () => {
    const { runtime } = await openRuntime({ settings: { providerInputBudget: 60_000 } });
    const session = new SyntheticSession({ seed: 3, resultChars: [3000, 16_000] });
    const repeatCommits: number[] = [];
    let commits = 0;
    for (let step = 0; step < 40; step += 1) {
      session.step();
      if ((await runtime.project(session.entries)).ledger.foldsLanded > 0) commits += 1;
      // The host projects the same transcript again a dozen times (as a fuzzer or a retry does):
      // nothing new arrived, so nothing new is worth a rewrite.
      for (let again = 0; again < 12; again += 1) {
        const row = (await runtime.project(session.entries)).ledger;
        if (row.causes.length > 0) repeatCommits.push(row.request);
      }
    }
    expect(repeatCommits).toEqual([]);
    expect(commits, 'the session itself commits').toBeGreaterThan(0);
  });
});

describe('scheduling settings (B3.6)', () => {
  it('defaults to the cost policy with a 20,000-token floor, and offers the band and the ablations', () => {
    const settings = resolveSettings({});
    expect(settings.scheduling).toBe('cost');
    expect(settings.rawFloorTokens).toBe(20_000);
    for (const mode of ['band', 'immediate', 'eager'] as const)
      expect(resolveSettings({ scheduling: mode }).scheduling).toBe(mode);
  });

  it('refuses the old "epoch" by name, saying what to write, and a bad floor', () => {
    expect(() => resolveSettings({ scheduling: 'epoch' })).toThrow(/"cost".*"band"/);
    expect(() => resolveSettings({ scheduling: 'lazy' })).toThrow(/now "eager"/);
    expect(() => resolveSettings({ rawFloorTokens: -1 })).toThrow(/rawFloorTokens/);
    expect(() => resolveSettings({ rawFloorTokens: 1.5 })).toThrow(/rawFloorTokens/);
  });
});
