import { describe, expect, it } from 'vitest';
import { createCharsCostModel, priceRequest } from '../../core/pricing/chars-cost-model.ts';
import { DEFAULT_PRICE_LIST, PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import type { RequestUsage } from '../../ports/cost-model.port.ts';

/**
 * Split usage totals into `count` requests as even as whole tokens allow, the way a run of
 * that many requests each under the long-context boundary adds up to the totals.
 */
function splitIntoRequests(
  totals: { fresh: number; cacheRead: number; output: number },
  count: number,
): RequestUsage[] {
  const share = (total: number, index: number): number => Math.floor(total / count) + (index < total % count ? 1 : 0);
  return Array.from({ length: count }, (_, index) => ({
    input: share(totals.fresh, index),
    cacheRead: share(totals.cacheRead, index),
    cacheWrite: 0,
    output: share(totals.output, index),
  }));
}

function totalDollars(usages: readonly RequestUsage[], price: (usage: RequestUsage) => number): number {
  return usages.reduce((sum, usage) => sum + price(usage), 0);
}

describe('the price list reproduces the seeds dollars from their usage totals', () => {
  it('1,249,415 fresh + 8,309,760 cache read + 38,951 output → $11.57 at the ledger rates', () => {
    const requests = splitIntoRequests({ fresh: 1_249_415, cacheRead: 8_309_760, output: 38_951 }, 64);
    for (const usage of requests)
      expect(usage.input + usage.cacheRead).toBeLessThanOrEqual(DEFAULT_PRICE_LIST.longContext!.aboveTokens);
    expect(requests.reduce((sum, usage) => sum + usage.input, 0)).toBe(1_249_415);
    const model = createCharsCostModel();
    expect(model.priceList.name).toBe('gpt-5.6-ledger');
    expect(totalDollars(requests, (usage) => model.price(usage)).toFixed(2)).toBe('11.57');
  });

  it('1,322,539 / 14,602,240 / 86,390 → $16.51 at flat base rates', () => {
    const flat = PRICE_LISTS['gpt-5.6-flat']!;
    const totals = { input: 1_322_539, cacheRead: 14_602_240, cacheWrite: 0, output: 86_390 };
    expect(priceRequest(flat, totals).toFixed(2)).toBe('16.51');
    expect(
      totalDollars(
        splitIntoRequests({ fresh: totals.input, cacheRead: totals.cacheRead, output: totals.output }, 90),
        (usage) => priceRequest(flat, usage),
      ).toFixed(2),
    ).toBe('16.51');
  });

  it('the long-context tier bills a whole request at its rates once the prompt passes 272,000 tokens', () => {
    const below = { input: 172_000, cacheRead: 100_000, cacheWrite: 0, output: 1_000 };
    const above = { ...below, input: below.input + 1 };
    expect(priceRequest(DEFAULT_PRICE_LIST, below)).toBeCloseTo((172_000 * 5 + 100_000 * 0.5 + 1_000 * 30) / 1e6, 9);
    expect(priceRequest(DEFAULT_PRICE_LIST, above)).toBeCloseTo((172_001 * 10 + 100_000 * 1 + 1_000 * 45) / 1e6, 9);
    // The same totals sent as one oversized request would cost the tier, not $11.57.
    expect(
      priceRequest(DEFAULT_PRICE_LIST, {
        input: 1_249_415,
        cacheRead: 8_309_760,
        cacheWrite: 0,
        output: 38_951,
      }).toFixed(2),
    ).toBe('22.56');
  });
});
