import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { CacheSurvival } from '../../core/commit/policy/cache-survival.ts';
import { commitPaysOff, expectedRewriteTokens, schedulingRates } from '../../core/commit/policy/cost.ts';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import { DEFAULT_PRICE_LIST } from '../../core/pricing/price-lists.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { openRuntime, providerTokens } from '../support/drive-session.ts';

const SECOND = 1000;

describe('B3.3 what the provider teaches about its cache lifetime', () => {
  it('is the monotone fit of losses over gaps, each pool counting one read beside its reports', () => {
    const survival = new CacheSurvival();
    // Gaps in seconds; losses at 100, 120 and 200 s, a read at 150 s between them.
    for (const [gap, lost] of [
      [10, false],
      [20, false],
      [30, false],
      [100, true],
      [120, true],
      [150, false],
      [200, true],
    ] as const)
      survival.observe(gap * SECOND, lost);
    // Pools: 10, 20, 30 (no loss); 100–150 (2 of 3, over 4); 200 (1 of 1, over 2).
    expect(survival.lossShare(5 * SECOND)).toBe(0);
    expect(survival.lossShare(50 * SECOND)).toBe(0);
    expect(survival.lossShare(110 * SECOND)).toBe(0.5);
    expect(survival.lossShare(250 * SECOND)).toBe(0.5);
    const shares = [0, 10, 30, 60, 100, 130, 160, 220, 400].map((gap) => survival.lossShare(gap * SECOND));
    expect(shares).toEqual([...shares].sort((a, b) => a - b));
  });

  it('never gives a longer gap a smaller chance of loss, whatever the reports', () => {
    const report = fc.record({ gapSeconds: fc.integer({ min: 0, max: 600 }), lost: fc.boolean() });
    fc.assert(
      fc.property(fc.array(report, { maxLength: 300 }), (reports) => {
        const survival = new CacheSurvival();
        for (const { gapSeconds, lost } of reports) survival.observe(gapSeconds * SECOND, lost);
        let before = 0;
        for (let gap = 0; gap <= 620; gap += 10) {
          const share = survival.lossShare(gap * SECOND);
          expect(share).toBeGreaterThanOrEqual(before);
          expect(share).toBeLessThan(1);
          before = share;
        }
      }),
      { numRuns: 200 },
    );
  });

  it('pools losses at one gap as one body of evidence', () => {
    const survival = new CacheSurvival();
    for (let report = 0; report < 50; report += 1) survival.observe(10 * SECOND, false);
    for (let report = 0; report < 14; report += 1) survival.observe(90 * SECOND, true);
    expect(survival.lossShare(90 * SECOND)).toBe(14 / 15);
    expect(survival.summary()).toEqual({ reads: 50, losses: 14, steps: [{ fromGapMs: 90 * SECOND, share: 14 / 15 }] });
  });

  it('learns nothing from a provider that never read from its cache, or lost it only once', () => {
    const never = new CacheSurvival();
    for (let report = 0; report < 50; report += 1) never.observe((report + 1) * SECOND, true);
    expect(never.lossShare(60 * SECOND)).toBe(0);
    const once = new CacheSurvival();
    for (let report = 0; report < 20; report += 1) once.observe(5 * SECOND, false);
    once.observe(90 * SECOND, true);
    expect(once.lossShare(90 * SECOND)).toBe(0);
  });

  it('a rewrite where the cache is likely gone is weighed by the chance it is not, less what it saves now', () => {
    const rates = schedulingRates(DEFAULT_PRICE_LIST, 50_000);
    const prospect = { windowTokens: 50_000, afterTokens: 48_000, rewriteTokens: 40_000, inflowTokens: 1_000 };
    expect(expectedRewriteTokens(prospect, 2_000, rates)).toBe(40_000);
    expect(expectedRewriteTokens({ ...prospect, lossShare: 1 }, 2_000, rates)).toBe(0);
    const premium = rates.fresh - rates.cacheRead;
    expect(expectedRewriteTokens({ ...prospect, lossShare: 0.5 }, 2_000, rates)).toBeCloseTo(
      0.5 * 40_000 - (0.5 * 2_000 * rates.fresh) / premium,
      6,
    );
    // 2,000 tokens of excess do not pay for a sure rewrite of 40,000, but do where the cache is gone.
    expect(commitPaysOff(prospect, rates)).toBe(false);
    expect(commitPaysOff({ ...prospect, lossShare: 1 }, rates)).toBe(true);
  });
});

/**
 * A session whose person pauses 90 s before every sixth request, inside the price list's
 * 300 s lifetime. The provider either loses its cache at every such pause or never does; it
 * bills a prefix cache of the previous prompt otherwise.
 */
async function drive(
  losesAtPauses: boolean,
  rewriteReadTokens = 1_000,
  store: FoldStore = new MemoryFoldStore(),
): Promise<{ pauseCommits: number; commits: number; requests: number[]; status: string; runtime: FoldRuntime }> {
  const { runtime, sink } = await openRuntime({ settings: { providerInputBudget: 120_000 }, store });
  const session = new SyntheticSession({ seed: 5, resultChars: [3000, 16_000] });
  let clock = 1_000_000;
  let pauseCommits = 0;
  let commits = 0;
  const requests: number[] = [];
  for (let step = 0; step < 240; step += 1) {
    session.step();
    const pause = step > 0 && step % 6 === 0;
    clock += pause ? 90 * SECOND : 10 * SECOND;
    const result = await runtime.project(session.entries, { requestTime: clock });
    const prompt = providerTokens(result.ledger.totalChars);
    const previous = sink.projections[sink.projections.length - 2];
    const lost = pause && losesAtPauses;
    const append = result.ledger.causes.length === 0;
    const cached =
      lost || previous === undefined ? 0 : append ? providerTokens(previous.ledger.totalChars) : rewriteReadTokens;
    const usage = {
      input: prompt - Math.min(prompt, cached),
      cacheRead: Math.min(prompt, cached),
      cacheWrite: 0,
      output: 200,
    };
    runtime.recordUsage(usage);
    if (result.ledger.foldsLanded > 0) {
      commits += 1;
      requests.push(result.ledger.request);
    }
    if (pause && result.ledger.foldsLanded > 0) pauseCommits += 1;
  }
  const status = (await runtime.act({ action: 'status' })).text;
  if (process.env.SHOW_STATUS) console.log(status);
  return { pauseCommits, commits, requests, status, runtime };
}

describe('B3.3 commits move to where the provider loses its cache', () => {
  it('a provider that loses its cache at pauses gets its commits there', async () => {
    const losing = await drive(true);
    const keeping = await drive(false);
    // Once the provider has lost its cache at two pauses, nearly every commit lands at one.
    expect(losing.pauseCommits).toBeGreaterThanOrEqual(0.8 * losing.commits);
    expect(keeping.pauseCommits).toBeLessThan(0.5 * keeping.commits);
    // `status` says what was learned, and says nothing where nothing was lost.
    expect(losing.status).toMatch(
      /provider cache: read on \d+ pure appends, gone on \d+; chance it is gone after a pause of ≥\d+ s \d+%/,
    );
    expect(keeping.status).not.toMatch(/provider cache:/);
  });

  it('a provider that reads nothing of a rewritten window teaches no loss: rewrites are not counted', async () => {
    const readsKeptPrefix = await drive(false);
    const readsNothingOfRewrites = await drive(false, 0);
    expect(readsNothingOfRewrites.requests).toEqual(readsKeptPrefix.requests);
  });

  it('a reopened session keeps what it learned, and a state without reports opens as before', async () => {
    const store = new MemoryFoldStore();
    const first = await drive(true, 1_000, store);
    const learned = first.runtime.view.scheduler.clock.learnedLosses();
    expect(learned.steps.length).toBeGreaterThan(0);
    await first.runtime.dispose();
    const stored = await store.loadState('session-1');
    expect(stored?.cacheReports?.length).toBe(learned.reads + learned.losses);
    const { runtime: reopened } = await openRuntime({ settings: { providerInputBudget: 120_000 }, store });
    expect(reopened.view.scheduler.clock.learnedLosses()).toEqual(learned);
    await reopened.dispose();
    const { cacheReports: _dropped, ...older } = stored!;
    const olderStore = new MemoryFoldStore();
    await olderStore.saveState('session-1', older);
    const { runtime: fromOlder } = await openRuntime({ settings: { providerInputBudget: 120_000 }, store: olderStore });
    expect(fromOlder.view.scheduler.clock.learnedLosses()).toEqual({ reads: 0, losses: 0, steps: [] });
  });
});
