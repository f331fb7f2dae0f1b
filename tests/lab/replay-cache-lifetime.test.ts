import { describe, expect, it } from 'vitest';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import {
  longLivedPrices,
  recordedCacheLifetime,
  replayCacheLifetime,
} from '../../lab/replay/recorded-cache-lifetime.ts';
import { replayTranscript } from '../../lab/replay/replay-transcript.ts';
import { agentRows, retimedClaudeSession } from './support/retimed-claude-session.ts';

const silent = { write: () => true, isTTY: false };
const claudeCodeSession = (cacheWrites: '5m' | '1h', idleBefore: number, idleMinutes: number): string =>
  retimedClaudeSession({ lineCount: 260, idleBefore, idleMinutes, cacheWrites });

const response = (cacheWrite: number, cacheWriteLong?: number) => ({
  order: 0,
  entryIndex: 0,
  text: '',
  toolCalls: [],
  usage: {
    input: 10,
    cacheRead: 0,
    cacheWrite,
    output: 5,
    ...(cacheWriteLong === undefined ? {} : { cacheWriteLong }),
  },
});

describe("a replay caches for the lifetime the recording's host wrote with", () => {
  it('reads the share of 1-hour writes; the long-lived list bills every write at the 1-hour rate and keeps entries an hour', () => {
    expect(recordedCacheLifetime([response(1_000, 600), response(1_000, 400), response(0)])).toEqual({
      long: true,
      writtenTokens: 2_000,
      longWrittenTokens: 1_000,
    });
    expect(recordedCacheLifetime([response(1_000, 300), response(1_000)]).long).toBe(false);
    expect(recordedCacheLifetime([response(0)]).long).toBe(false);

    const sonnet = PRICE_LISTS['claude-sonnet-4-5']!;
    const long = longLivedPrices(sonnet)!;
    expect(long.base.cacheWrite).toBe(2 * sonnet.base.input);
    expect(long.longContext!.rates.cacheWrite).toBe(2 * sonnet.longContext!.rates.input);
    expect(long.cacheLifetimeSeconds).toBe(3600);
    expect(long.base.cacheRead).toBe(sonnet.base.cacheRead);
    // A provider with no long lifetime keeps its list, and the report says why.
    expect(longLivedPrices(PRICE_LISTS['gpt-5']!)).toBeUndefined();
    const openai = replayCacheLifetime([response(1_000, 1_000)], PRICE_LISTS['gpt-5']!, 300);
    expect(openai.ttlSeconds).toBe(300);
    expect(openai.armPrices).toBe(PRICE_LISTS['gpt-5']);
    expect(openai.note).toMatch(/states no 1-hour lifetime/);
    expect(replayCacheLifetime([response(1_000)], sonnet, 300)).toEqual({
      armPrices: sonnet,
      ttlSeconds: 300,
      note: undefined,
    });
  });

  it('a real Claude Code session that wrote for an hour keeps its cache across a 20-minute gap, and pays the 1-hour rate', {
    timeout: 180_000,
  }, async () => {
    const idleBefore = 40;
    const short = await replayTranscript({
      path: claudeCodeSession('5m', idleBefore, 20),
      arms: ['native'],
      maxRequests: 50,
      progress: silent,
    });
    const long = await replayTranscript({
      path: claudeCodeSession('1h', idleBefore, 20),
      arms: ['native'],
      maxRequests: 50,
      progress: silent,
    });
    expect(short.run.settings.cacheRules.ttlSeconds).toBe(300);
    expect(long.run.settings.cacheRules.ttlSeconds).toBe(3600);
    expect(long.notes.join('\n')).toMatch(/cache lifetime: 3600 s, as the recording wrote 100 % of its/);
    expect(short.notes.join('\n')).not.toMatch(/cache lifetime/);
    expect(long.notes.join('\n')).toContain("0 idle gap(s) over the cache's 3600 s lifetime");
    expect(short.notes.join('\n')).toContain("1 idle gap(s) over the cache's 300 s lifetime");

    const shortRows = agentRows(short, 'native');
    const longRows = agentRows(long, 'native');
    expect(shortRows[idleBefore]!.cacheRead).toBe(0);
    expect(longRows[idleBefore]!.cacheRead).toBeGreaterThan(0);
    // The same prompts either side of the gap; only what was cached and the write rate differ.
    expect(longRows.map((row) => row.promptTokens)).toEqual(shortRows.map((row) => row.promptTokens));
    const prices = long.run.settings.prices!;
    expect(prices.base.cacheWrite).toBe(2 * prices.base.input);
    for (const row of longRows)
      expect(row.costUsd).toBeCloseTo(
        ((row.cacheWrite ?? 0) * prices.base.cacheWrite +
          row.cacheRead * prices.base.cacheRead +
          (row.freshInput - (row.cacheWrite ?? 0)) * prices.base.input +
          row.output * prices.base.output) /
          1e6,
        10,
      );
  });
});
