import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICE_LIST } from '../../core/pricing/price-lists.ts';
import { readLoop } from '../../testing/vercel-ai/scripted-model.ts';
import { type LoopRun, runLoop } from './support/run-loop.ts';

// A generateText loop reading one 9–14 KB file per step: about 3,300 tokens of inflow a request.
const STEPS = 60;
const SMALL = 30_000;
const LARGE = 80_000;

/** Dollars the mock's usage bills at the default list (the mock reports a positional prefix cache). */
function dollars(run: LoopRun): number {
  const rates = DEFAULT_PRICE_LIST.base;
  let usd = 0;
  for (const call of run.model.calls)
    usd += ((call.tokens - call.cacheRead) * rates.input + call.cacheRead * rates.cacheRead) / 1_000_000;
  return usd;
}

async function loopAt(budget: number, sessionId: string): Promise<LoopRun> {
  return runLoop({
    kind: 'generateText',
    script: readLoop(STEPS),
    maxSteps: STEPS + 5,
    folding: { sessionId, settings: { providerInputBudget: budget } },
  });
}

describe('B3.2 the cost default at a small budget (docs/cost-scheduling.md, "Small budgets")', () => {
  it('does not commit on most requests at 30k, keeps a quarter of the budget raw, and pays per request no more than at 80k', async () => {
    const small = await loopAt(SMALL, 'small-budget');
    const runtime = small.folding.runtime;
    expect(small.errors).toEqual([]);
    const requests = small.model.calls.length;
    expect(requests).toBe(STEPS + 1);
    const commits = runtime.view.ledger.filter((row) => row.foldsLanded > 0);
    // With the floor at half the budget, a commit barely got under the 0.80 trigger: 46 of 61 requests committed.
    expect(commits.length).toBeGreaterThan(3);
    expect(commits.length / requests).toBeLessThanOrEqual(1 / 3);

    // The floor is still in force: when each fold landed, the raw transcript after its span
    // held at least a quarter of the budget (Pi's 4 chars a token), measured on the loop's own
    // history at that request, independently of the engine's floor arithmetic.
    const floorChars = (SMALL / 4) * 4;
    const records = [...runtime.view.lattice.allRecords()];
    expect(records.length).toBeGreaterThan(0);
    for (const record of records) {
      const landedBy = commits[record.epoch - 1]!;
      const entries = small.folding.entries(small.histories[landedBy.request - 1]!);
      const last = entries.findIndex((entry) => entry.id === record.lastEntryId);
      expect(last).toBeGreaterThanOrEqual(0);
      const after = entries.slice(last + 1).reduce((sum, entry) => sum + entry.bytes.length, 0);
      expect(after, `fold ${record.id} (epoch ${record.epoch})`).toBeGreaterThanOrEqual(floorChars);
    }

    // A small window must not make each request dearer than a large one does.
    const large = await loopAt(LARGE, 'large-budget');
    expect(large.errors).toEqual([]);
    expect(dollars(small) / requests).toBeLessThanOrEqual(dollars(large) / large.model.calls.length);
  }, 120_000);
});
