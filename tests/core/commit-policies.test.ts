import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RecordingProjectionSink } from '../../adapters/backends/projection-recorder/recording-projection-sink.ts';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import { priceRequest } from '../../core/pricing/chars-cost-model.ts';
import { DEFAULT_PRICE_LIST } from '../../core/pricing/price-lists.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { appendOnlyViolations } from '../../testing/window-checks.ts';
import { openRuntime, providerTokens } from '../support/drive-session.ts';

const BUDGET = 120_000;

interface Driven {
  readonly runtime: FoldRuntime;
  readonly sink: RecordingProjectionSink;
  /** Dollars the provider would bill, at the default list, with a positional cache of the previous prompt. */
  readonly dollars: number;
  /** Per request: the reason of the commit it landed, if any, and whether it landed folds. */
  readonly commits: { request: number; reason: string | undefined; folds: number }[];
}

/** Drive a synthetic session, billing each request like a prefix cache would (rewrites pay fresh from their first changed byte on). */
async function drive(options: {
  seed: number;
  steps: number;
  settings?: Record<string, unknown>;
  gapAt?: number;
  gapMs?: number;
  onRequest?: (runtime: FoldRuntime, session: SyntheticSession) => void;
}): Promise<Driven> {
  const { runtime, sink } = await openRuntime({ settings: { providerInputBudget: BUDGET, ...options.settings } });
  const session = new SyntheticSession({ seed: options.seed, resultChars: [3000, 16_000] });
  let dollars = 0;
  let clock = 1_000_000;
  const commits: Driven['commits'] = [];
  for (let step = 0; step < options.steps; step += 1) {
    session.step();
    clock += step === options.gapAt ? (options.gapMs ?? 0) : 15_000;
    const result = await runtime.project(session.entries, { requestTime: clock });
    const prompt = providerTokens(result.ledger.totalChars);
    const previous = sink.projections[sink.projections.length - 2];
    const keptChars =
      previous === undefined
        ? 0
        : result.ledger.causes.length === 0
          ? previous.ledger.totalChars
          : keptPrefixChars(previous.messages, result.messages);
    const cached = Math.min(prompt, keptChars === 0 ? 0 : providerTokens(keptChars));
    const usage = { input: prompt - cached, cacheRead: cached, cacheWrite: 0, output: 200 };
    dollars += priceRequest(DEFAULT_PRICE_LIST, usage);
    runtime.recordUsage(usage);
    if (result.ledger.foldsLanded > 0)
      commits.push({
        request: result.ledger.request,
        reason: runtime.view.scheduler.lastReason,
        folds: result.ledger.foldsLanded,
      });
    options.onRequest?.(runtime, session);
  }
  return { runtime, sink, dollars, commits };
}

function keptPrefixChars(before: readonly { bytes: string }[], after: readonly { bytes: string }[]): number {
  let chars = 0;
  for (
    let index = 0;
    index < Math.min(before.length, after.length) && before[index]!.bytes === after[index]!.bytes;
    index += 1
  )
    chars += before[index]!.bytes.length;
  return chars;
}

describe('B3.2 the cost policy against the seed band', () => {
  it('pays fewer dollars on the same session, with every rewrite attributed', async () => {
    const cost = await drive({ seed: 11, steps: 220 });
    const band = await drive({ seed: 11, steps: 220, settings: { scheduling: 'band' } });
    expect(cost.commits.length).toBeGreaterThan(2);
    expect(cost.commits.every((commit) => commit.reason === 'cost' || commit.reason === 'ceiling')).toBe(true);
    expect(cost.dollars).toBeLessThan(band.dollars);
    expect(appendOnlyViolations(cost.sink.projections)).toEqual([]);
    expect(cost.runtime.view.memory.counters.unattributedRewrites).toBe(0);
    for (const projection of cost.sink.projections)
      expect(projection.ledger.estimatedTokens).toBeLessThanOrEqual(BUDGET);
  });
});

describe("B3.6 immediate: the default's trigger, one mark per request", () => {
  it('fires where the cost policy first fires, lands one fold per request, and rewrites more often', async () => {
    const cost = await drive({ seed: 11, steps: 220 });
    const immediate = await drive({ seed: 11, steps: 220, settings: { scheduling: 'immediate' } });
    expect(immediate.commits[0]!.request).toBe(cost.commits[0]!.request);
    expect(immediate.commits.every((commit) => commit.folds === 1 || commit.reason === 'fence')).toBe(true);
    expect(immediate.runtime.view.memory.counters.rewrites).toBeGreaterThan(cost.runtime.view.memory.counters.rewrites);
    expect(appendOnlyViolations(immediate.sink.projections)).toEqual([]);
  });
});

describe('B3.3 a cold cache lands due marks', () => {
  it("after an idle gap past the list's cache lifetime the next request commits; the same request without the gap does not", async () => {
    const lifetimeMs = DEFAULT_PRICE_LIST.cacheLifetimeSeconds! * 1000;
    const warm = await drive({ seed: 5, steps: 60 });
    // The request just before warm's first commit: marks stand, the policy waits.
    const quiet = warm.commits[0]!.request - 2;
    expect(warm.commits.some((commit) => commit.request === quiet + 1)).toBe(false);
    const cold = await drive({ seed: 5, steps: 60, gapAt: quiet, gapMs: lifetimeMs + 1 });
    const landed = cold.commits.find((commit) => commit.request === quiet + 1);
    expect(landed?.reason).toBe('cold-idle');
    const justWarm = await drive({ seed: 5, steps: 60, gapAt: quiet, gapMs: lifetimeMs });
    expect(justWarm.commits.some((commit) => commit.request === quiet + 1)).toBe(false);
  });

  it('a host-reported cache refresh during the gap keeps the cache warm', async () => {
    const lifetimeMs = DEFAULT_PRICE_LIST.cacheLifetimeSeconds! * 1000;
    const warm = await drive({ seed: 5, steps: 60 });
    const quiet = warm.commits[0]!.request - 2;
    let requests = 0;
    const warmed = await drive({
      seed: 5,
      steps: 60,
      gapAt: quiet,
      gapMs: lifetimeMs + 1,
      // Pi 1.x warms during the gap: one refresh half-way through it.
      onRequest: (runtime) => {
        requests += 1;
        if (requests === quiet) runtime.noteCacheWarmed(1_000_000 + 15_000 * (quiet - 1) + lifetimeMs / 2);
      },
    });
    expect(warmed.commits.some((commit) => commit.request === quiet + 1)).toBe(false);
  });
});

describe('B3.2 the raw working-set floor (property)', () => {
  it('no automatic commit folds any of the newest rawFloorTokens of transcript', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 10_000 }),
        fc.constantFrom('cost', 'band', 'immediate'),
        fc.integer({ min: 5_000, max: 40_000 }),
        async (seed, scheduling, floor) => {
          const violations: string[] = [];
          await drive({
            seed,
            steps: 120,
            settings: { scheduling, rawFloorTokens: floor },
            onRequest: (runtime) => {
              const row = runtime.view.ledger[runtime.view.ledger.length - 1]!;
              if (row.foldsLanded === 0 || runtime.view.scheduler.lastReason === 'fence') return;
              // Independent of the engine's own floor arithmetic: Pi's 4 chars per token, capped at a quarter of the budget.
              const floorChars = Math.min(floor, BUDGET / 4) * 4;
              for (const record of runtime.view.lattice.allRecords()) {
                if (record.epoch !== runtime.view.memory.epoch) continue;
                const last = runtime.view.index.positionOf(record.lastEntryId)!;
                const after = runtime.view.index.entries
                  .slice(last + 1)
                  .reduce((sum, entry) => sum + entry.bytes.length, 0);
                if (after < floorChars)
                  violations.push(
                    `${scheduling} seed ${seed}: fold ${record.id} ends with ${after} chars after it, floor ${floorChars}`,
                  );
              }
            },
          });
          expect(violations).toEqual([]);
        },
      ),
      { numRuns: 12, seed: 15 },
    );
  }, 120_000);
});
