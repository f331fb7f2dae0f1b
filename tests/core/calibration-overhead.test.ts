import { describe, expect, it } from 'vitest';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { openRuntime } from '../support/drive-session.ts';

/** A host that sends a large system prompt and tool schemas around the messages, counted at 4 chars a token. */
const OVERHEAD_CHARS = 70_000;
const CHARS_PER_TOKEN = 4;

describe('chars per token, learnt from provider counts that include the host overhead', () => {
  it('counts the overhead on both sides of the ratio, so a large system prompt does not inflate every estimate', async () => {
    const { runtime } = await openRuntime({ settings: { providerInputBudget: 400_000 } });
    const session = new SyntheticSession({ seed: 4, resultChars: [4_000, 12_000] });
    for (let step = 0; step < 12; step += 1) {
      session.step();
      const { ledger } = await runtime.project(session.entries, { overheadChars: OVERHEAD_CHARS });
      const promptTokens = Math.ceil((ledger.totalChars + OVERHEAD_CHARS) / CHARS_PER_TOKEN);
      runtime.recordUsage({ input: promptTokens, cacheRead: 0, cacheWrite: 0, output: 50 });
    }
    // Messages alone against the whole prompt's tokens would give about 1.5 chars a token here.
    expect(runtime.view.estimator.charsPerToken()).toBeCloseTo(CHARS_PER_TOKEN, 2);
    // The estimate of a grown window still lands on what the provider will count.
    session.step();
    const next = await runtime.project(session.entries, { overheadChars: OVERHEAD_CHARS });
    const actual = Math.ceil((next.ledger.totalChars + OVERHEAD_CHARS) / CHARS_PER_TOKEN);
    expect(Math.abs(next.ledger.estimatedTokens - actual)).toBeLessThanOrEqual(2);
  });
});
