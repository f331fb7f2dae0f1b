import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CACHE_RULES,
  PrefixCacheSimulator,
  type PromptMessage,
} from '../../lab/provider/prefix-cache-simulator.ts';

let sequence = 0;
function message(tokens: number, seed = sequence++): PromptMessage {
  return {
    digest: `m${seed}`,
    tokens: Array.from({ length: tokens }, (_, position) => (seed * 7919 + position) % 50_000),
  };
}

describe('prefix cache simulator', () => {
  it('a pure append is served from cache up to the previous prompt (rounded to granularity)', () => {
    const cache = new PrefixCacheSimulator();
    const first = [message(2000), message(1500)];
    expect(cache.bill(first, 0)).toEqual({ promptTokens: 3500, cacheRead: 0, fresh: 3500 });
    const second = [...first, message(700)];
    const bill = cache.bill(second, 10);
    expect(bill.cacheRead).toBe(3500 - (3500 % 128));
    expect(bill.fresh).toBe(4200 - bill.cacheRead);
  });

  it('an edit in the middle makes the whole suffix fresh, however small the edit', () => {
    const cache = new PrefixCacheSimulator();
    const [a, b, c] = [message(3000), message(3000), message(3000)];
    cache.bill([a, b, c], 0);
    const edited: PromptMessage = {
      digest: 'edited',
      tokens: [...b.tokens.slice(0, 1000), 1, ...b.tokens.slice(1001)],
    };
    const bill = cache.bill([a, edited, c], 5);
    expect(bill.cacheRead).toBe(4000 - (4000 % 128));
    expect(bill.fresh).toBe(9000 - bill.cacheRead);
  });

  it('entries expire after the stated time, and short prefixes are never cached', () => {
    const cache = new PrefixCacheSimulator({ minimumTokens: 1024, granularity: 128, ttlSeconds: 300, maxEntries: 4 });
    const prompt = [message(5000)];
    cache.bill(prompt, 0);
    expect(cache.bill([...prompt, message(10)], 301).cacheRead).toBe(0);
    const small = [message(900)];
    cache.bill(small, 400);
    expect(cache.bill([...small, message(50)], 401).cacheRead).toBe(0);
  });

  it('impossible rules are refused by name', () => {
    expect(() => new PrefixCacheSimulator({ minimumTokens: 0, granularity: 0, ttlSeconds: 1, maxEntries: 1 })).toThrow(
      /SETTINGS.INVALID/,
    );
  });
});

describe('a long-lived cache entry', () => {
  const prompt = [{ digest: 'system', tokens: Array.from({ length: 4096 }, (_, position) => position) }];

  it('a read 10 minutes after a 1-hour write hits; after a 5-minute write it misses', () => {
    const long = new PrefixCacheSimulator(DEFAULT_CACHE_RULES);
    long.bill(prompt, 0, 3600);
    expect(long.bill(prompt, 600, 3600).cacheRead).toBe(4096);
    const short = new PrefixCacheSimulator(DEFAULT_CACHE_RULES);
    short.bill(prompt, 0);
    expect(short.bill(prompt, 600).cacheRead).toBe(0);
  });

  it('a 1-hour entry still expires after an hour without a hit', () => {
    const long = new PrefixCacheSimulator(DEFAULT_CACHE_RULES);
    long.bill(prompt, 0, 3600);
    expect(long.bill(prompt, 3601, 3600).cacheRead).toBe(0);
  });
});
