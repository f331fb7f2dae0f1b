import { describe, expect, it } from 'vitest';
import { priceRequest } from '../../core/pricing/chars-cost-model.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import { armCostSplit, requestCostSplit } from '../../lab/report/cost-split.ts';
import { type ArmSummary, costRecoveryFront, formatArmTable, summarizeArm } from '../../lab/report/index.ts';
import { costSplitCsv } from '../../lab/report/report-files.ts';
import { billedRow, growingArm, labRun } from './support/lab-run-fixture.ts';

const LEDGER = PRICE_LISTS['gpt-5.6-ledger']!;

function point(
  arm: ArmSummary['arm'],
  costUsd: number,
  reads: number,
  lost = 0,
  extra: Partial<ArmSummary> = {},
): ArmSummary {
  const base = summarizeArm(growingArm(arm, 1, 1_000, 0));
  return {
    ...base,
    costUsd,
    recovery: { reads, requests: reads, tokens: 0, usd: 0 },
    probes: { asked: 5, correct: 5 - lost, recovered: 0, lost, recoveryReads: reads },
    ...extra,
  };
}

describe('where each dollar goes', () => {
  it('splits a long-context request into base-rate parts plus the surcharge, and a summary call whole', () => {
    const long = {
      ...billedRow('native', 0, { tokens: 300_000, cacheRead: 100_000, output: 1_000 }),
      event: 'commit' as const,
    };
    const split = requestCostSplit(long, LEDGER);
    expect(split.rewriteFreshUsd).toBeCloseTo((200_000 * 5) / 1e6, 9);
    expect(split.appendedFreshUsd).toBe(0);
    expect(split.cacheReadUsd).toBeCloseTo((100_000 * 0.5) / 1e6, 9);
    expect(split.outputUsd).toBeCloseTo((1_000 * 30) / 1e6, 9);
    // The tier doubles input and cache reads and adds half to output: the surcharge is exactly that extra.
    expect(split.longContextSurchargeUsd).toBeCloseTo((200_000 * 5 + 100_000 * 0.5 + 1_000 * 15) / 1e6, 9);
    const summary = billedRow('native', 1, { tokens: 50_000, cacheRead: 0, output: 500, purpose: 'summary' });
    expect(requestCostSplit(summary, LEDGER)).toMatchObject({
      summaryCallsUsd: summary.costUsd,
      appendedFreshUsd: 0,
      outputUsd: 0,
    });
    const refused = billedRow('native', 2, { tokens: 400_000, cacheRead: 0, output: 0, rejected: true });
    const whole = armCostSplit([long, summary, refused], LEDGER);
    expect(Object.values(whole).reduce((sum, part) => sum + part, 0)).toBeCloseTo(long.costUsd + summary.costUsd, 6);
  });

  it('counts written tokens as fresh input and only what a write costs beyond input as cache writes', () => {
    const writesBilled = { name: 'writes-billed', base: { input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 } };
    const row = { ...billedRow('fold', 0, { tokens: 10_000, cacheRead: 2_000, output: 100 }), cacheWrite: 8_000 };
    const cost = priceRequest(writesBilled, { input: 0, cacheRead: 2_000, cacheWrite: 8_000, output: 100 });
    const split = requestCostSplit(row, writesBilled);
    expect(split.appendedFreshUsd).toBeCloseTo((8_000 * 3) / 1e6, 9);
    expect(split.cacheWriteUsd).toBeCloseTo((8_000 * 0.75) / 1e6, 9);
    expect(Object.values(split).reduce((sum, part) => sum + part, 0)).toBeCloseTo(cost, 9);
  });

  it('writes one CSV line per arm whose parts add up to its cost', () => {
    const run = labRun([growingArm('native', 6, 200_000, 20_000), growingArm('fold', 6, 10_000, 2_000)]);
    const [header, ...lines] = costSplitCsv(run).trim().split('\n');
    const columns = header!.split(',');
    expect(columns.slice(0, 9)).toEqual([
      'arm',
      'costUsd',
      'usdAppendedFreshInput',
      'usdRewriteFreshInput',
      'usdCacheReads',
      'usdCacheWrites',
      'usdOutput',
      'usdLongContextSurcharge',
      'usdSummaryCalls',
    ]);
    expect(lines).toHaveLength(2);
    for (const line of lines) {
      const cells = line.split(',');
      const parts = cells
        .slice(2, 9)
        .map(Number)
        .reduce((sum, part) => sum + part, 0);
      expect(parts).toBeCloseTo(Number(cells[1]), 5);
    }
    // Native's prompts cross the 272k tier: its surcharge is not zero.
    expect(Number(lines[0]!.split(',')[7])).toBeGreaterThan(0);
  });
});

describe('the cost/recovery front', () => {
  it('keeps the arms no other arm beats on cost, recovery reads and losses, and says the default holds', () => {
    const front = costRecoveryFront(
      [point('native', 10, 3), point('fold', 4, 2), point('fold-eager', 3, 40), point('fold-band', 6, 2)],
      372_000,
    );
    expect(front.points.filter((entry) => entry.onFront).map((entry) => entry.arm)).toEqual(['fold', 'fold-eager']);
    expect(front.points.find((entry) => entry.arm === 'fold-band')!.dominatedBy).toBe('fold');
    expect(front.cheaperThanDefault).toEqual([]);
    expect(front.defaultOnFront).toBe(true);
    expect(front.statement).toMatch(
      /^fold \(the default\) holds: no arm is both cheaper than it \(\$4\.00\) and loses nothing with no more recovery reads \(2\)/,
    );
  });

  it('says so when a cheaper arm loses nothing with no more recovery reads, and never counts a reference above the cap or an arm that stopped', () => {
    const summaries = [
      point('fold', 4, 5),
      point('fold-eager', 3, 5),
      point('fold-band', 2, 9),
      point('fold-immediate', 1, 0, 2),
      point('oracle', 0.5, 0, 0, { peakPromptTokens: 1_000_000 }),
      point('unmanaged', 0.1, 0, 0, { failure: 'refused' }),
    ];
    const front = costRecoveryFront(summaries, 372_000);
    expect(front.cheaperThanDefault).toEqual(['fold-eager']);
    expect(front.defaultOnFront).toBe(false);
    expect(front.statement).toMatch(
      /does NOT hold: fold-eager costs \$3\.00 < \$4\.00, loses nothing, with 5 ≤ 5 recovery reads/,
    );
    const byArm = new Map(front.points.map((entry) => [entry.arm, entry]));
    expect(byArm.get('oracle')!.onFront).toBe(false);
    expect(byArm.get('oracle')!.withinCap).toBe(false);
    expect(byArm.get('unmanaged')!.onFront).toBe(false);
    // Cheaper but losing questions: on the front (nothing beats it on losses at its price), yet not a reason the default fails.
    expect(byArm.get('fold-immediate')!.onFront).toBe(true);
  });

  it('prints the front and the statement under a live table, not under a replay', () => {
    const scored = labRun([
      growingArm('native', 3, 1_000, 1_000, {
        probes: { asked: 1, correct: 1, recovered: 0, lost: 0, recoveryReads: 0 },
      }),
      growingArm('fold', 3, 1_000, 500, { probes: { asked: 1, correct: 1, recovered: 0, lost: 0, recoveryReads: 0 } }),
    ]);
    expect(formatArmTable(scored)).toMatch(
      /cost\/recovery front \(cost, recovery reads, questions lost; lower is better\): fold\nfold \(the default\) holds/,
    );
    expect(formatArmTable(labRun([growingArm('native', 3, 1_000, 1_000)]))).not.toMatch(/cost\/recovery front/);
  });
});
