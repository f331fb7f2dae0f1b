import { describe, expect, it } from 'vitest';
import { formatArmTable, formatRatio, percentile, summarizeArm } from '../../lab/report/index.ts';
import { billedRow, growingArm, labRun } from './support/lab-run-fixture.ts';

/** The cell pair (value, ratio) of an arm in one table row. */
function cells(table: string, label: string): string[] {
  const line = table.split('\n').find((candidate) => candidate.startsWith(label));
  expect(line, `row ${label}`).toBeDefined();
  return line!
    .slice(label.length)
    .trim()
    .split(/\s{2,}/);
}

describe('the seeds table', () => {
  it('sums billed rows, leaves refused ones out, and prices long-context requests at their tier', () => {
    const rows = [
      billedRow('native', 0, { tokens: 100_000, cacheRead: 0, output: 1_000 }),
      billedRow('native', 1, { tokens: 300_000, cacheRead: 99_968, output: 1_000 }),
      billedRow('native', 2, { tokens: 400_000, cacheRead: 0, output: 0, rejected: true }),
      billedRow('native', 3, { tokens: 50_000, cacheRead: 0, output: 500, purpose: 'summary' }),
    ];
    const summary = summarizeArm({
      arm: 'native',
      rows,
      compactions: 1,
      foldEvents: 0,
      rewritesAttributed: 1,
      rewritesUnattributed: 0,
      fileReads: 0,
      fileBytes: 0,
    });
    expect(summary.requests).toBe(4);
    expect(summary.billedCalls).toBe(3);
    expect(summary.rejectedRequests).toBe(1);
    expect(summary.summaryCalls).toBe(1);
    expect(summary.peakPromptTokens).toBe(300_000);
    expect(summary.freshInput).toBe(100_000 + 200_032 + 50_000);
    expect(summary.totalTokens).toBe(450_000 + 2_500);
    expect(summary.longContextRequests).toBe(1);
    // 200,032 fresh at $10/M + 99,968 cached at $1/M + 1,000 output at $45/M.
    expect(summary.longContextUsd).toBeCloseTo(2.00032 + 0.099968 + 0.045, 6);
    expect(summary.costUsd).toBeCloseTo(summary.longContextUsd + 0.5 + 0.03 + 0.25 + 0.015, 6);
    expect(summary.pooledCacheShare).toBeCloseTo(99_968 / 450_000, 6);
  });

  it('puts each arm beside its ratio against native', () => {
    const native = growingArm('native', 10, 10_000, 5_000, { compactions: 2 });
    const fold = growingArm('fold', 10, 10_000, 2_500, { foldEvents: 3 });
    const table = formatArmTable(labRun([native, fold]));
    const nativeSummary = summarizeArm(native);
    const foldSummary = summarizeArm(fold);
    const [nativeTotal, nativeRatio, foldTotal, foldRatio] = cells(table, 'total tokens');
    expect(nativeTotal).toBe(nativeSummary.totalTokens.toLocaleString('en-US'));
    expect(nativeRatio).toBe('1.00×');
    expect(foldTotal).toBe(foldSummary.totalTokens.toLocaleString('en-US'));
    expect(foldRatio).toBe(`${(foldSummary.totalTokens / nativeSummary.totalTokens).toFixed(2)}×`);
    expect(Number(foldRatio!.replace('×', ''))).toBeLessThan(1);
    expect(cells(table, 'peak request context')[3]).toBe(
      `${(foldSummary.peakPromptTokens / nativeSummary.peakPromptTokens).toFixed(2)}×`,
    );
    expect(cells(table, 'compactions').slice(0, 2)).toEqual(['2', '1.00×']);
    expect(table).not.toMatch(/probes/);
    expect(table).not.toMatch(/no native arm/);
  });

  it('says so when there is no native arm, and shows probes when an arm was scored', () => {
    const fold = growingArm('fold', 3, 1_000, 1_000, {
      probes: { asked: 5, correct: 3, recovered: 1, lost: 1, recoveryReads: 2 },
    });
    const table = formatArmTable(labRun([growingArm('unmanaged', 3, 1_000, 1_000), fold]));
    expect(table).toMatch(/no native arm in this run/);
    expect(cells(table, 'probes correct')).toEqual(['—', '—', '3', '—']);
    expect(cells(table, 'probes lost')[2]).toBe('1');
  });

  it('ratios and percentiles follow their definitions', () => {
    expect(formatRatio(60, 100)).toBe('0.60×');
    expect(formatRatio(0, 0)).toBe('1.00×');
    expect(formatRatio(5, 0)).toBe('—');
    expect(percentile([5, 1, 4, 2, 3], 50)).toBe(3);
    expect(
      percentile(
        Array.from({ length: 100 }, (_, index) => index + 1),
        99,
      ),
    ).toBe(99);
    expect(percentile([], 99)).toBe(0);
  });
});
