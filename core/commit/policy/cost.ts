import type { PriceList } from '../../../ports/cost-model.port.ts';
import { ratesFor } from '../../pricing/price-lists.ts';

/**
 * The arithmetic of docs/behaviour.md B3.2, worked out in `docs/cost-scheduling.md`. Pure numbers in, pure
 * numbers out: every rate comes from the CostModel's price list, none is written here.
 */

/** What a commit decided now would look like, in tokens. */
export interface CommitProspect {
  /** The window as this request would send it without a commit. */
  readonly windowTokens: number;
  /** The window right after the commit (every mark it may land landed). */
  readonly afterTokens: number;
  /** Tokens the commit re-sends from its first changed byte on: the post-commit window less the prefix it keeps. */
  readonly rewriteTokens: number;
  /** Tokens appended per request, as observed. */
  readonly inflowTokens: number;
  /**
   * The chance that the provider's cache is already gone at this request (0 when nothing says
   * so). Where it is gone, the rewrite costs no premium and the whole window is paid fresh, so
   * what the commit frees is saved at the fresh rate on this very request.
   */
  readonly lossShare?: number;
}

/** Per-token dollars the scheduler weighs: a cache read, and a token entering the cache. */
export interface SchedulingRates {
  readonly cacheRead: number;
  /** The cache-write rate (the input rate where the provider bills no write surcharge). */
  readonly fresh: number;
}

/** The rates of the tier a window of `windowTokens` is billed at. */
export function schedulingRates(priceList: PriceList, windowTokens: number): SchedulingRates {
  const rates = ratesFor(priceList, windowTokens);
  return { cacheRead: rates.cacheRead, fresh: Math.max(rates.input, rates.cacheWrite) };
}

/**
 * The excess over the post-commit window at which committing is cheapest per request:
 * √(2 · R · (f − r) · g / r), with R the rewritten tokens, f the fresh rate, r the cache-read
 * rate and g the inflow per request. Infinite when a read costs nothing (rent never grows)
 * or nothing flows in; zero when a rewrite costs no more than a read.
 */
export function economicExcess(rewriteTokens: number, inflowTokens: number, rates: SchedulingRates): number {
  const premium = rates.fresh - rates.cacheRead;
  if (premium <= 0 || rewriteTokens <= 0) return 0;
  if (rates.cacheRead <= 0 || inflowTokens <= 0) return Number.POSITIVE_INFINITY;
  return Math.sqrt((2 * rewriteTokens * premium * inflowTokens) / rates.cacheRead);
}

/** True when the excess the window carries over the commit's aim has reached the economic one. */
export function commitPaysOff(prospect: CommitProspect, rates: SchedulingRates): boolean {
  const excess = prospect.windowTokens - prospect.afterTokens;
  if (excess <= 0) return false;
  return excess >= economicExcess(expectedRewriteTokens(prospect, excess, rates), prospect.inflowTokens, rates);
}

/**
 * The rewrite as the premium it is expected to cost, in tokens at the premium: paid in full
 * where the cache is still warm, and where it is gone, offset by the freed tokens this request
 * no longer pays fresh. Never below zero.
 */
export function expectedRewriteTokens(prospect: CommitProspect, excess: number, rates: SchedulingRates): number {
  const loss = Math.min(1, Math.max(0, prospect.lossShare ?? 0));
  if (loss === 0) return prospect.rewriteTokens;
  const premium = rates.fresh - rates.cacheRead;
  if (premium <= 0) return 0;
  return Math.max(0, (1 - loss) * prospect.rewriteTokens - (loss * excess * rates.fresh) / premium);
}

/**
 * Expected dollars per request of committing every `cycle` requests, the unavoidable fresh
 * inflow left out: the rewrite's premium spread over the cycle plus the mean cache-read rent.
 * The scheduler does not call it; it states what `economicExcess` minimizes, for tests and docs.
 */
export function dollarsPerRequest(
  afterTokens: number,
  rewriteTokens: number,
  inflowTokens: number,
  cycle: number,
  rates: SchedulingRates,
): number {
  const premium = (rewriteTokens * (rates.fresh - rates.cacheRead)) / cycle;
  const rent = rates.cacheRead * (afterTokens + (inflowTokens * (cycle - 1)) / 2);
  return (premium + rent) / 1_000_000;
}

/**
 * The hard ceiling no automatic policy lets a request cross: the budget, the long-context
 * line less a safety share (estimates drift by a few percent), and the band's top where set.
 */
export function hardCeiling(input: { budgetTokens: number; priceList: PriceList; ceilingShare: number }): number {
  const line = input.priceList.longContext?.aboveTokens;
  const belowLine = line === undefined ? Number.POSITIVE_INFINITY : Math.floor(line * (1 - LINE_SAFETY_SHARE));
  return Math.min(input.budgetTokens * input.ceilingShare, belowLine);
}

/** Share of the long-context line kept free for estimation error. */
export const LINE_SAFETY_SHARE = 0.02;
