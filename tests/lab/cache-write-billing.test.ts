import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import { replayTranscript } from '../../lab/replay/replay-transcript.ts';
import { summarizeArm } from '../../lab/report/arm-summary.ts';
import { COST_SPLIT_PARTS } from '../../lab/report/cost-split.ts';

const trajectory = join(resolve(import.meta.dirname, 'fixtures'), 'mini-swe-agent-toolcall.traj.json');
const claudeCode = resolve(
  import.meta.dirname,
  '../fixtures/transcripts/claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl',
);
const silent = { write: () => true, isTTY: false };

describe('cache writes are billed where the price list bills them apart', () => {
  it('Anthropic: every uncached token is a cache write at 1.25× input, on a real Claude Code replay, and the split still adds up', {
    timeout: 60_000,
  }, async () => {
    const report = await replayTranscript({ path: claudeCode, arms: ['native'], maxRequests: 6, progress: silent });
    // The list comes from Pi's pi-ai registry, at Anthropic's published rates.
    expect(report.window.priceList).toBe('anthropic/claude-sonnet-4-5-20250929');
    expect(report.window.prices.base).toMatchObject(PRICE_LISTS['claude-sonnet-4-5']!.base);
    const list = report.window.prices;
    const rows = report.run.arms[0]!.rows.filter((row) => !row.rejected);
    expect(rows.length).toBe(6);
    for (const row of rows) {
      // Every fresh token is written (Pi and Claude Code mark the newest message as a cache breakpoint).
      expect(row.freshInput).toBe(row.promptTokens - row.cacheRead);
      expect(row.cacheWrite).toBe(row.freshInput);
      expect(row.costUsd).toBeCloseTo(
        (row.cacheWrite! * list.base.cacheWrite + row.cacheRead * list.base.cacheRead + row.output * list.base.output) /
          1e6,
        12,
      );
    }
    const summary = summarizeArm(report.run.arms[0]!, list);
    const written = rows.reduce((sum, row) => sum + (row.cacheWrite ?? 0), 0);
    expect(summary.cacheWrite).toBe(written);
    // Written tokens are fresh input at the input rate; the cache-write part is only what writing adds.
    expect(summary.costSplit.cacheWriteUsd).toBeCloseTo((written * (list.base.cacheWrite - list.base.input)) / 1e6, 4);
    expect(summary.costSplit.appendedFreshUsd + summary.costSplit.rewriteFreshUsd).toBeCloseTo(
      (written * list.base.input) / 1e6,
      4,
    );
    const parts = COST_SPLIT_PARTS.reduce((sum, { key }) => sum + summary.costSplit[key], 0);
    expect(parts).toBeCloseTo(summary.costUsd, 4);
  });

  it('OpenAI (no write premium): the same replay bills no cache writes', { timeout: 60_000 }, async () => {
    const report = await replayTranscript({ path: trajectory, arms: ['native'], priceList: 'gpt-5', progress: silent });
    const rows = report.run.arms[0]!.rows;
    expect(
      rows.every((row) => (row.cacheWrite ?? 0) === 0 && row.freshInput === row.promptTokens - row.cacheRead),
    ).toBe(true);
    expect(summarizeArm(report.run.arms[0]!, PRICE_LISTS['gpt-5']!).costSplit.cacheWriteUsd).toBe(0);
  });
});
