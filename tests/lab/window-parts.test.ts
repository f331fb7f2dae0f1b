import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayTranscript } from '../../lab/replay/replay-transcript.ts';
import { summarizeArm } from '../../lab/report/arm-summary.ts';
import { formatArmTable } from '../../lab/report/arm-table.ts';
import { priceListNamed } from '../../lab/report/cost-split.ts';
import { WINDOW_PARTS, type WindowParts, windowParts } from '../../lab/report/window-parts.ts';

const claudeCode = resolve(
  import.meta.dirname,
  '../fixtures/transcripts/claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl',
);
const silent = { write: () => true, isTTY: false };
const total = (parts: WindowParts): number => WINDOW_PARTS.reduce((sum, { key }) => sum + parts[key], 0);

describe('what a window is made of', () => {
  it('splits a prompt by its wire elements: system, tools, then each message by the part the projection gave it', () => {
    expect(windowParts([300, 900, 40, 70, 25, 60], ['transcript', 'briefs', 'receipts', 'transcript'])).toMatchObject({
      system: 300,
      tools: 900,
      transcript: 100,
      briefs: 70,
      receipts: 25,
      unmatched: 0,
    });
    // No projection (an arm pi-fold does not run): every message is transcript.
    expect(windowParts([300, 900, 40, 70], undefined)).toMatchObject({ transcript: 110, briefs: 0, unmatched: 0 });
    // A host that sent another number of messages than the projection held: nothing is guessed.
    expect(windowParts([300, 900, 40, 70], ['transcript'])).toMatchObject({ transcript: 0, unmatched: 110 });
  });

  it("on a real replay the parts add up to every prompt, and the fold arm's briefs, notices and receipts are counted apart", {
    timeout: 180_000,
  }, async () => {
    const report = await replayTranscript({
      path: claudeCode,
      arms: ['native', 'fold'],
      maxRequests: 95,
      progress: silent,
      clock: 'uniform',
    });
    const [native, fold] = report.run.arms;
    for (const arm of [native!, fold!])
      for (const row of arm.rows.filter((candidate) => !candidate.rejected))
        expect(total(row.window!)).toBe(row.promptTokens);
    expect(
      native!.rows.every((row) => row.window!.transcript === row.promptTokens - row.window!.system - row.window!.tools),
    ).toBe(true);
    const commit = fold!.rows.findIndex((row) => row.event === 'commit');
    expect(commit).toBeGreaterThan(0);
    const after = fold!.rows[commit]!.window!;
    expect(after.briefs).toBeGreaterThan(0);
    expect(after.receipts).toBeGreaterThan(0);
    expect(after.unmatched).toBe(0);
    expect(fold!.rows[commit - 1]!.window!.briefs).toBe(0);
    const summary = summarizeArm(fold!, priceListNamed(report.run.settings.priceList));
    expect(summary.meanWindow!.briefs).toBeGreaterThan(0);
    expect(formatArmTable(report.run)).toMatch(/\n {2}fold briefs +0 +1\.00× +[\d,]+ +—/);
  });
});
