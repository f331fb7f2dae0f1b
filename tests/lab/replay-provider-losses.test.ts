import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { priceRequest } from '../../core/pricing/chars-cost-model.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import {
  DEFAULT_CACHE_RULES,
  PrefixCacheSimulator,
  type PromptMessage,
} from '../../lab/provider/prefix-cache-simulator.ts';
import { describeFaithfulness } from '../../lab/replay/faithfulness.ts';
import {
  describeCacheHistory,
  LOSS_TOLERANCE_TOKENS,
  recordedCacheHistory,
  replayedCacheLosses,
} from '../../lab/replay/recorded-cache-losses.ts';
import { replayTranscript } from '../../lab/replay/replay-transcript.ts';
import type { ArmResult, RequestRow } from '../../lab/report/lab-records.ts';
import { loadTranscript } from '../../lab/transcripts/load-transcript.ts';
import type { RecordedResponse } from '../../lab/transcripts/recorded-session.ts';
import { constructedCacheLosses } from './support/constructed-cache-losses.ts';
import { agentRows } from './support/retimed-claude-session.ts';

const silent = { write: () => true, isTTY: false };

function usage(input: number, cacheRead: number, cacheWrite: number, time?: number): RecordedResponse {
  return {
    entryIndex: 0,
    usage: { input, cacheRead, cacheWrite, output: 10 },
    ...(time === undefined ? {} : { time }),
  };
}

function message(digest: string, tokens: number): PromptMessage {
  return { digest, tokens: Array.from({ length: tokens }, (_, position) => (digest.length * 131 + position) % 50_000) };
}

describe("the provider's own cache losses, read from a recording", () => {
  it('a pure append that read short of its previous prompt is a loss; the recorder rewrites are not', () => {
    const responses = [
      usage(0, 0, 0),
      usage(10, 0, 20_000, 0),
      usage(10, 20_000, 2_000, 10_000),
      // The provider kept only the host's fixed block: 12,000 of 22,010 tokens.
      usage(10, 12_000, 10_500, 20_000),
      usage(10, 22_500, 500, 30_000),
      // Short by less than the tolerance: the tail every request leaves unwritten, no loss.
      usage(10, 23_010 - LOSS_TOLERANCE_TOKENS + 1, 1_500, 40_000),
      // The recorder changed its prompt (it shrank by 30 tokens) and read only its fixed block.
      usage(10, 12_000, 11_457, 50_000),
      // The recorder compacted: a prompt under four fifths of the one before, nothing read.
      usage(10, 0, 9_000, 60_000),
      usage(10, 9_000, 300, 70_000),
      // Nothing read though the prompt barely shrank: no rewrite of the conversation empties
      // the system prompt's cache, so the provider lost it, after a pause past its lifetime.
      usage(10, 0, 9_200, 470_000),
    ];
    const history = recordedCacheHistory(responses);
    expect(history.losses).toEqual([
      { response: 3, keptTokens: 12_000, movedTokens: 10_010, gapSeconds: 10 },
      { response: 9, keptTokens: 0, movedTokens: 9_310, gapSeconds: 400 },
    ]);
    expect(history.rewrites).toEqual([
      { response: 6, kind: 'prompt change', movedTokens: 11_497 },
      { response: 7, kind: 'compaction', movedTokens: 23_467 },
    ]);
    // Every arm replays them in lab tokens: the recorder counted 1.2 per lab token.
    expect([...replayedCacheLosses(history.losses, 10, 1.2)]).toEqual([
      [3, 10_000],
      [9, 0],
    ]);
    expect([...replayedCacheLosses(history.losses, 9, 1)]).toEqual([[3, 12_000]]);
    const notes = describeCacheHistory(history, 10, 300).join('\n');
    expect(notes).toContain('provider cache losses: 2 of 10 recorded requests');
    expect(notes).toContain('(1 read nothing, 1 only a prefix); they moved 19,320 tokens');
    expect(notes).toContain('1 of them came after an idle gap');
    expect(notes).toContain(
      'recorder rewrites not replayed as losses: 1 compaction(s) (23,467 tokens), 1 prompt change(s) that shrank the prompt and read only part of it (11,497 tokens)',
    );
    expect(describeCacheHistory({ losses: [], rewrites: [] }, 5, 300)).toEqual([
      'provider cache losses: none (every pure append read its previous prompt from cache)',
    ]);
  });

  it('a cache that lost all but a prefix serves that prefix, even past its lifetime, and keeps the prompt just sent', () => {
    const cache = new PrefixCacheSimulator(DEFAULT_CACHE_RULES);
    const fixed = message('fixed', 3_000);
    const first = [fixed, message('a', 5_000)];
    cache.bill(first, 0);
    const second = [...first, message('b', 2_000)];
    expect(cache.bill(second, 10).cacheRead).toBe(7_936);
    // The provider lost everything past 3,000 tokens, 400 s after its last use (past the 300 s lifetime).
    cache.keepPrefix(3_000, 410);
    const third = [...second, message('c', 500)];
    expect(cache.bill(third, 410).cacheRead).toBe(2_944);
    // What it was just sent is held in full again.
    expect(cache.bill([...third, message('d', 100)], 420).cacheRead).toBe(10_496);
    cache.keepPrefix(0, 430);
    expect(cache.bill([...third, message('e', 100)], 430).cacheRead).toBe(0);
    // With the cache full of entries a loss revived, the prompt sent at the same moment stays.
    const full = new PrefixCacheSimulator({ ...DEFAULT_CACHE_RULES, maxEntries: 3 });
    for (let index = 0; index < 3; index += 1) full.bill([fixed, message(`x${index}`, 2_000)], index);
    full.keepPrefix(2_000, 500);
    const sent = [fixed, message('y', 4_000)];
    full.bill(sent, 500);
    expect(full.bill([...sent, message('z', 10)], 505).cacheRead).toBe(6_912);
  });

  it("every arm's cache is cut where the recording's provider lost its cache on a pure append, and only there", {
    timeout: 240_000,
  }, async () => {
    const loss = 30;
    const change = 40;
    const kept = 12_000;
    const recording = constructedCacheLosses(260, [
      { kind: 'provider loss', response: loss, keptTokens: kept },
      { kind: 'prompt change', response: change, shrankBy: 40, keptTokens: kept },
    ]);
    const report = await replayTranscript({
      path: recording.path,
      arms: ['unmanaged', 'native', 'fold'],
      maxRequests: 55,
      progress: silent,
    });
    const notes = report.notes.join('\n');
    expect(notes).toContain('provider cache losses: 1 of 55 recorded requests');
    expect(notes).toContain(
      `they moved ${(recording.prompts[loss - 1]! - kept).toLocaleString('en-US')} tokens from cache reads to fresh input`,
    );
    expect(notes).toContain('0 compaction(s) (0 tokens), 1 prompt change(s)');
    const scale = report.calibration.tokenScale.scale;
    for (const arm of ['unmanaged', 'native', 'fold']) {
      const rows = agentRows(report, arm);
      // Cut to what the recording's provider kept (in the provider's counts, one rounding step).
      expect(rows[loss]!.cacheRead, arm).toBeLessThanOrEqual(kept + scale);
      expect(rows[loss - 1]!.cacheRead, arm).toBeGreaterThan(kept + 5_000);
      expect(rows[loss + 1]!.cacheRead, arm).toBeGreaterThan(rows[loss]!.promptTokens - 500);
    }
    // The recorder's own prompt change is no loss: an arm that did not change its prompt reads it all.
    for (const arm of ['unmanaged', 'native']) {
      const rows = agentRows(report, arm);
      expect(rows[change]!.cacheRead, arm).toBeGreaterThan(rows[change - 1]!.promptTokens - 500);
    }
    // The fold arm is billed under the same loss, and so is the bound.
    const fold = agentRows(report, 'fold');
    expect(fold[loss]!.freshInput).toBeGreaterThan(fold[loss]!.promptTokens - kept - scale - 1);
    expect(report.run.bound?.costUsd).toBeGreaterThan(0);
  });
});

describe('a replay more than 10 % from the recorded bill says what it cannot reproduce, in one line', () => {
  const priceList = PRICE_LISTS['claude-sonnet-4-5']!;
  const recording = {
    format: 'claude-code' as const,
    compactions: 0,
    responses: [usage(10, 0, 20_000), usage(10, 12_000, 9_000), usage(10, 20_900, 300), usage(10, 21_000, 200)],
  };
  function nativeArm(freshInputs: readonly number[], compactions = 0): ArmResult {
    const rows: RequestRow[] = freshInputs.map((freshInput, index) => {
      const row = {
        arm: 'native' as const,
        index,
        promptTokens: 21_000,
        cacheRead: 21_000 - freshInput,
        freshInput,
        cacheWrite: freshInput,
        output: 10,
        longContext: false,
        rejected: false,
        event: 'append' as const,
        purpose: 'agent' as const,
        hookMs: 0,
      };
      return {
        ...row,
        costUsd: priceRequest(priceList, { input: 0, cacheRead: row.cacheRead, cacheWrite: freshInput, output: 10 }),
      };
    });
    return {
      arm: 'native',
      rows,
      compactions,
      foldEvents: 0,
      rewritesAttributed: 0,
      rewritesUnattributed: 0,
      fileReads: 0,
      fileBytes: 0,
    };
  }
  const rewrites = [{ response: 1, kind: 'prompt change' as const, movedTokens: 8_010 }];

  it('names the prompt changes no arm makes, with their tokens and dollars, and the token split', () => {
    const lines = describeFaithfulness({
      recording,
      responseCount: 4,
      priceList,
      native: nativeArm([21_000, 500, 300, 200]),
      recorderRewrites: rewrites,
    });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^faithfulness: native as replayed \$[\d.]+ against \$[\d.]+ as recorded \(0\.\d\d×\): more than 10 % apart; what the replay cannot reproduce: /,
    );
    expect(lines[0]).toContain(
      "1 prompt change(s) of the recorder's own (its prompt shrank and read only part of its cache) moved 8,010 tokens to fresh input, about $0.03",
    );
    expect(lines[0]).toContain("native's fresh input 22,000 against 29,540 recorded (-26 %)");
    // Within 10 %, the line says so and nothing else.
    const close = describeFaithfulness({
      recording,
      responseCount: 4,
      priceList,
      native: nativeArm([21_000, 9_010, 300, 200]),
      recorderRewrites: rewrites,
    });
    expect(close).toEqual([expect.stringMatching(/\(1\.0\d×\): within 10 %$|\(0\.9\d×\): within 10 %$/)]);
    // Nothing the replay can see: it says that, and still how the tokens split.
    const unexplained = describeFaithfulness({
      recording,
      responseCount: 4,
      priceList,
      native: nativeArm([21_000, 500, 300, 200]),
    });
    const unread = describeFaithfulness({
      recording,
      responseCount: 4,
      priceList,
      native: nativeArm([21_000, 500, 300, 200]),
      malformedLines: 28,
      tokenScale: 2.736,
    });
    expect(unread[0]).toContain(
      '28 line(s) of the file could not be read, so what they held is missing from every arm, and the tokenizer fit (2.736×, beyond the 1.4× tokenizers differ by)',
    );
    // A recording that wrote 10 output tokens per response where its texts count 2,000: the prompt side is compared alone.
    const talkative = { ...nativeArm([21_000, 500, 300, 200]) };
    const lines500 = describeFaithfulness({
      recording,
      responseCount: 4,
      priceList,
      native: {
        ...talkative,
        rows: talkative.rows.map((row) => ({ ...row, output: 2_000, costUsd: row.costUsd + 1_990 * 15e-6 })),
      },
    });
    expect(lines500[0]).toMatch(
      /the recording's output counts \(40 tokens for 4 responses\) are under half of what its responses' own text and tool calls count as replayed \(8,000\): its host did not write what was billed; without output on either side, native \$[\d.]+ against \$[\d.]+ \(0\.\d\d×\)/,
    );
    expect(unexplained[0]).not.toContain('output counts');
    expect(unexplained[0]).toContain(
      'what the replay cannot reproduce: no difference the replay can see explains it; native',
    );
  });
});

describe('the public recordings kept beside the four', () => {
  const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts/claude-code');
  it.each([
    ['ff59cfd2-09dc-4a18-8c9f-0d46c3d4e8cd.jsonl', 206],
    ['abc757d1-3da3-42fb-bb7b-ffa293a4ba29.jsonl', 94],
    ['3af9b1a7-6512-4883-ad18-320658ced099.jsonl', 114],
  ])('%s loads whole, and each loss it shows is a pure append or read nothing', async (name, responses) => {
    const session = await loadTranscript(join(fixtures, name));
    expect(session.format).toBe('claude-code');
    expect(session.responses).toHaveLength(responses);
    const prompt = (position: number): number => {
      const usage = session.responses[position]!.usage!;
      return usage.input + usage.cacheRead + usage.cacheWrite;
    };
    const previousPrompt = (position: number): number => {
      for (let before = position - 1; before >= 0; before -= 1) if (prompt(before) > 0) return prompt(before);
      return 0;
    };
    const history = recordedCacheHistory(session.responses);
    expect(history.losses.length).toBeGreaterThan(0);
    for (const loss of history.losses) {
      expect(loss.keptTokens === 0 || prompt(loss.response) >= previousPrompt(loss.response)).toBe(true);
      expect(loss.movedTokens).toBe(previousPrompt(loss.response) - loss.keptTokens);
    }
    for (const rewrite of history.rewrites)
      expect(prompt(rewrite.response)).toBeLessThan(previousPrompt(rewrite.response));
  });
});
