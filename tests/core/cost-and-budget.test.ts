import { describe, expect, it } from 'vitest';
import { outputReservation, servingBudget } from '../../core/pricing/budget.ts';
import { priceRequest } from '../../core/pricing/chars-cost-model.ts';
import { OccupancyEstimator } from '../../core/pricing/occupancy-estimator.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';

describe('serving budget', () => {
  it('is the explicit budget, or the window less min(16384, 10%)', () => {
    expect(servingBudget(150_000, 999_999)).toBe(150_000);
    expect(servingBudget(undefined, 272_000)).toBe(272_000 - 16_384);
    expect(servingBudget(undefined, 100_000)).toBe(90_000);
    expect(outputReservation(200_000)).toBe(16_384);
    expect(() => servingBudget(undefined, undefined)).toThrow(/SETTINGS.INVALID/);
  });
});

describe('occupancy estimator', () => {
  it('anchors on the provider count and calibrates chars per token from large samples', () => {
    const estimator = new OccupancyEstimator(4);
    expect(estimator.estimate(40_000, 0)).toBe(10_000);
    estimator.recordProviderCount(100_000, 30_000);
    expect(estimator.charsPerToken()).toBeCloseTo(100_000 / 30_000);
    expect(estimator.estimate(100_000, 0)).toBe(30_000);
    expect(estimator.estimate(110_000, 0)).toBe(30_000 + Math.ceil(10_000 / (100_000 / 30_000)));
    estimator.recordProviderCount(1_000, 900);
    expect(estimator.charsPerToken()).toBeCloseTo(100_000 / 30_000);
  });
});

describe('price lists reproduce the seeds', () => {
  // Every folding request stayed under the 272k boundary, so its totals price at base rates.
  it('$11.57 from the folding arm usage at stage 56', () => {
    const dollars = priceRequest(PRICE_LISTS['gpt-5.6-flat']!, {
      input: 1_249_415,
      cacheRead: 8_309_760,
      cacheWrite: 0,
      output: 38_951,
    });
    expect(dollars.toFixed(2)).toBe('11.57');
  });

  it('$16.51 at flat base rates for native compaction', () => {
    const dollars = priceRequest(PRICE_LISTS['gpt-5.6-flat']!, {
      input: 1_322_539,
      cacheRead: 14_602_240,
      cacheWrite: 0,
      output: 86_390,
    });
    expect(dollars.toFixed(2)).toBe('16.51');
  });

  it('the long-context tier applies above 272,000 prompt tokens', () => {
    const list = PRICE_LISTS['gpt-5.6-ledger']!;
    expect(priceRequest(list, { input: 272_000, cacheRead: 0, cacheWrite: 0, output: 0 })).toBeCloseTo(1.36);
    expect(priceRequest(list, { input: 272_001, cacheRead: 0, cacheWrite: 0, output: 0 })).toBeCloseTo(2.72001);
  });
});
