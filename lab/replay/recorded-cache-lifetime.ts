import type { PriceList, PriceRates } from '../../ports/cost-model.port.ts';
import type { RecordedSession } from '../transcripts/recorded-session.ts';

/** Share of a recording's cache writes made with the long lifetime at which the replay caches that long. */
const LONG_LIFETIME_SHARE = 0.5;

/** The cache lifetime a replay reproduces, read from what the recording wrote. */
export interface RecordedCacheLifetime {
  /** Whether the arms cache for the long lifetime and pay its write rate. */
  readonly long: boolean;
  /** Tokens the recording wrote to the cache, and how many of them with the long lifetime. */
  readonly writtenTokens: number;
  readonly longWrittenTokens: number;
}

/**
 * Which lifetime the recording's host asked its provider for. Claude Code marks every write
 * `ephemeral_5m` or `ephemeral_1h`; a replay whose recording wrote most of its cache for an
 * hour caches for an hour too, or every idle gap between 5 minutes and an hour would find a
 * cache the recording had, and every write would be billed below what it cost.
 */
export function recordedCacheLifetime(responses: RecordedSession['responses']): RecordedCacheLifetime {
  let writtenTokens = 0;
  let longWrittenTokens = 0;
  for (const response of responses) {
    const usage = response.usage;
    if (usage === undefined) continue;
    writtenTokens += usage.cacheWrite;
    longWrittenTokens += Math.min(usage.cacheWrite, usage.cacheWriteLong ?? 0);
  }
  const long = writtenTokens > 0 && longWrittenTokens / writtenTokens >= LONG_LIFETIME_SHARE;
  return { long, writtenTokens, longWrittenTokens };
}

/**
 * The price list as a host that writes with the long lifetime pays it: every write at the
 * long rate, and the long lifetime as the cache's. Undefined when the list offers no long
 * lifetime (the provider has none, or the catalog does not say).
 */
export function longLivedPrices(prices: PriceList): PriceList | undefined {
  const lifetime = prices.longCacheLifetimeSeconds;
  if (lifetime === undefined || prices.base.cacheWriteLong === undefined) return undefined;
  return {
    ...prices,
    name: `${prices.name} (1 h cache writes)`,
    base: longWrites(prices.base),
    ...(prices.longContext === undefined
      ? {}
      : { longContext: { ...prices.longContext, rates: longWrites(prices.longContext.rates) } }),
    cacheLifetimeSeconds: lifetime,
  };
}

function longWrites(rates: PriceRates): PriceRates {
  return { ...rates, cacheWrite: rates.cacheWriteLong ?? rates.cacheWrite };
}

/** What the arms of a replay cache with: their price list, the cache's lifetime, and why. */
export interface ReplayCacheLifetime {
  readonly armPrices: PriceList;
  readonly ttlSeconds: number;
  /** The report's line on the lifetime, when the recording used the long one at all. */
  readonly note: string | undefined;
}

/**
 * The lifetime every arm of a replay caches with: the long one (and its write rate) when the
 * recording wrote most of its cache with it and the price list offers it, else `shortSeconds`.
 */
export function replayCacheLifetime(
  responses: RecordedSession['responses'],
  prices: PriceList,
  shortSeconds: number,
): ReplayCacheLifetime {
  const lifetime = recordedCacheLifetime(responses);
  if (lifetime.longWrittenTokens === 0) return { armPrices: prices, ttlSeconds: shortSeconds, note: undefined };
  const share = Math.round((100 * lifetime.longWrittenTokens) / lifetime.writtenTokens);
  const written = `the recording wrote ${share} % of its ${lifetime.writtenTokens.toLocaleString('en-US')} cache-write tokens with the 1-hour lifetime`;
  if (!lifetime.long)
    return {
      armPrices: prices,
      ttlSeconds: shortSeconds,
      note: `cache lifetime: ${shortSeconds} s; ${written}, under half`,
    };
  const long = longLivedPrices(prices);
  if (long === undefined)
    return {
      armPrices: prices,
      ttlSeconds: shortSeconds,
      note: `cache lifetime: ${shortSeconds} s; ${written}, but ${prices.name} states no 1-hour lifetime and rate, so every arm caches for ${shortSeconds} s at its write rate`,
    };
  const ttlSeconds = long.cacheLifetimeSeconds!;
  return {
    armPrices: long,
    ttlSeconds,
    note: `cache lifetime: ${ttlSeconds} s, as ${written}: every arm's cache keeps an entry ${ttlSeconds} s without a hit, and every write is billed at the 1-hour rate ($${long.base.cacheWrite} per million)`,
  };
}
