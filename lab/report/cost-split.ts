import { priceRequest } from '../../core/pricing/chars-cost-model.ts';
import { DEFAULT_PRICE_LIST, PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import type { PriceList, RequestUsage } from '../../ports/cost-model.port.ts';
import type { LabRunSettings, RequestRow } from './lab-records.ts';

/**
 * Where an arm's dollars went. The parts add up to the arm's cost: every agent request is
 * priced at the base rates part by part, the long-context tier's extra is its own part, and
 * a native summary call is counted whole under `summaryCalls` (it is a request only
 * compaction makes).
 */
export interface CostSplit {
  /** Fresh input of requests that purely appended to the previous prompt. */
  readonly appendedFreshUsd: number;
  /** Fresh input of requests that rewrote the window (commits, compactions, give-backs). */
  readonly rewriteFreshUsd: number;
  readonly cacheReadUsd: number;
  /** What cache writes cost beyond the input rate, for price lists that bill them higher (0 otherwise); the tokens themselves are in the fresh parts. */
  readonly cacheWriteUsd: number;
  readonly outputUsd: number;
  /** What the long-context tier added over the base rates on requests above its boundary. */
  readonly longContextSurchargeUsd: number;
  /** Native compaction's summary calls, whole. */
  readonly summaryCallsUsd: number;
}

/** The parts in the order every report prints them, with their printed labels. */
export const COST_SPLIT_PARTS: readonly { readonly key: keyof CostSplit; readonly label: string }[] = [
  { key: 'appendedFreshUsd', label: 'appended fresh input' },
  { key: 'rewriteFreshUsd', label: 'rewrite fresh input' },
  { key: 'cacheReadUsd', label: 'cache reads' },
  { key: 'cacheWriteUsd', label: 'cache writes' },
  { key: 'outputUsd', label: 'output' },
  { key: 'longContextSurchargeUsd', label: 'long-context surcharge' },
  { key: 'summaryCallsUsd', label: 'summary calls' },
];

export const ZERO_SPLIT: CostSplit = Object.freeze({
  appendedFreshUsd: 0,
  rewriteFreshUsd: 0,
  cacheReadUsd: 0,
  cacheWriteUsd: 0,
  outputUsd: 0,
  longContextSurchargeUsd: 0,
  summaryCallsUsd: 0,
});

/** The price list a run names; the default when the name is unknown (a report never fails on it). */
export function priceListNamed(name: string): PriceList {
  return PRICE_LISTS[name] ?? DEFAULT_PRICE_LIST;
}

/** The price list a run was billed by: the one it carries (a catalog's entry), else the one it names. */
export function priceListOf(settings: Pick<LabRunSettings, 'priceList' | 'prices'>): PriceList {
  return settings.prices ?? priceListNamed(settings.priceList);
}

/** One request's dollars, part by part, priced through core's `priceRequest`. A refused request costs nothing. */
export function requestCostSplit(row: RequestRow, priceList: PriceList): CostSplit {
  if (row.rejected) return ZERO_SPLIT;
  const writes = row.cacheWrite ?? 0;
  const usage: RequestUsage = {
    input: row.freshInput - writes,
    cacheRead: row.cacheRead,
    cacheWrite: writes,
    output: row.output,
  };
  if (row.purpose === 'summary') return { ...ZERO_SPLIT, summaryCallsUsd: priceRequest(priceList, usage) };
  // The base tier alone: pricing each part at it, and the whole at the real tier, isolates the surcharge.
  const base: PriceList = { name: `${priceList.name} (base)`, base: priceList.base };
  const part = (only: Partial<RequestUsage>): number =>
    priceRequest(base, { input: 0, cacheRead: 0, cacheWrite: 0, output: 0, ...only });
  // Every token not read from the cache counts as fresh input at the input rate; a write's extra is its own part.
  const fresh = part({ input: row.freshInput });
  const split = {
    appendedFreshUsd: row.event === 'append' ? fresh : 0,
    rewriteFreshUsd: row.event === 'append' ? 0 : fresh,
    cacheReadUsd: part({ cacheRead: usage.cacheRead }),
    cacheWriteUsd: part({ cacheWrite: writes }) - part({ input: writes }),
    outputUsd: part({ output: usage.output }),
  };
  return {
    ...split,
    summaryCallsUsd: 0,
    longContextSurchargeUsd: priceRequest(priceList, usage) - priceRequest(base, usage),
  };
}

/** An arm's split: its requests' splits summed, rounded to micro-dollars like every stable figure. */
export function armCostSplit(rows: readonly RequestRow[], priceList: PriceList): CostSplit {
  const sums: Record<keyof CostSplit, number> = { ...ZERO_SPLIT };
  for (const row of rows) {
    const split = requestCostSplit(row, priceList);
    for (const { key } of COST_SPLIT_PARTS) sums[key] += split[key];
  }
  for (const { key } of COST_SPLIT_PARTS) sums[key] = Math.round(sums[key] * 1e6) / 1e6;
  return sums;
}
