import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { openRuntime, reportUncachedUsage } from '../support/drive-session.ts';

describe('a reopened session keeps its pace', () => {
  /** Commits of one synthetic session, its runtime disposed and reopened from the store every `reopenEvery` requests. */
  async function commitsOf(reopenEvery: number | undefined): Promise<number[]> {
    const store = new MemoryFoldStore();
    const settings = { providerInputBudget: 120_000 };
    let { runtime } = await openRuntime({ settings, store });
    const session = new SyntheticSession({ seed: 9, resultChars: [3000, 16_000] });
    const commits: number[] = [];
    for (let step = 0; step < 200; step += 1) {
      if (reopenEvery !== undefined && step > 0 && step % reopenEvery === 0) {
        await runtime.dispose();
        ({ runtime } = await openRuntime({ settings, store }));
      }
      session.step();
      const result = await runtime.project(session.entries);
      reportUncachedUsage(runtime, result.ledger);
      if (result.ledger.foldsLanded > 0) commits.push(step);
    }
    return commits;
  }

  it('commits where an uninterrupted session does, though its runtime is reopened every ten requests', async () => {
    const uninterrupted = await commitsOf(undefined);
    expect(uninterrupted.length).toBeGreaterThan(5);
    expect(await commitsOf(10)).toEqual(uninterrupted);
  });
});
