import { join, resolve } from 'node:path';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { calibrateHostBlock, hostBlockText } from '../../lab/replay/host-block.ts';
import {
  firstRecordedCompaction,
  neverCompactedReserve,
  recordedCompactionReserve,
} from '../../lab/replay/recorded-compaction.ts';
import { replayTranscript } from '../../lab/replay/replay-transcript.ts';
import { fitTokenScale } from '../../lab/replay/token-scale.ts';
import type { RecordedResponse } from '../../lab/transcripts/recorded-session.ts';

const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts');
const silent = { write: () => true, isTTY: false };

function usage(input: number, cacheRead: number, cacheWrite: number): RecordedResponse {
  return { entryIndex: 0, usage: { input, cacheRead, cacheWrite, output: 10 } };
}

describe('replay calibration from the recording', () => {
  it('a host block has exactly the tokens asked for, and is sized in lab tokens', () => {
    for (const tokens of [1, 7, 1_341, 17_548]) expect(encode(hostBlockText(tokens)).length).toBe(tokens);
    expect(hostBlockText(0)).toBe('');
    expect(calibrateHostBlock(17_910, 362).tokens).toBe(17_548);
    // The recorder counted 1.25 of its tokens per lab token: 20,000 of them are 16,000 lab tokens.
    expect(calibrateHostBlock(20_000, 1_000, 1.25).tokens).toBe(15_000);
    expect(calibrateHostBlock(500, 1_000).tokens).toBe(0);
    expect(calibrateHostBlock(undefined, 1_000).tokens).toBe(0);
  });

  it('the tokenizer ratio is the slope of recorded growth over replayed growth, up to the first compaction', () => {
    const replayed = Array.from({ length: 40 }, (_, index) => 1_000 + index * 2_500);
    // Recorded: a 9,000-token host block, 1.2 tokens per lab token, then a compaction at 30.
    const recorded = replayed.map((tokens, index) => (index < 30 ? Math.round(9_000 + tokens * 1.2) : 5_000));
    const fit = fitTokenScale(recorded, replayed);
    expect(fit.scale).toBe(1.2);
    // Requests under the growth floor (the first) and after the compaction are left out.
    expect(fit.requests).toBe(29);
    expect(fitTokenScale(recorded.slice(0, 3), replayed.slice(0, 3))).toEqual({ scale: 1, requests: 2 });
    // Leading responses without usage are skipped, not read as zero.
    const shifted = fitTokenScale([undefined, ...recorded], [800, ...replayed]);
    expect(shifted.scale).toBe(1.2);
  });

  it('a calibrated replay sends the recorded first prompt, and its native reproduces the recorded bill', async () => {
    const path = join(fixtures, 'pi-mono/large-session.jsonl');
    const report = await replayTranscript({ path, arms: ['native'], maxRequests: 120, progress: silent });
    const bare = await replayTranscript({
      path,
      arms: ['native'],
      maxRequests: 120,
      progress: silent,
      calibration: 'off',
    });
    // The recording's first response was billed nothing; its second request held 1,687 prompt
    // tokens (3 fresh, 1,684 written), and the replay's second request must hold as many.
    const first = (run: typeof report) =>
      run.run.arms[0]!.rows.filter((row) => row.purpose !== 'summary' && !row.rejected)[1]!.promptTokens;
    expect(Math.abs(first(report) - 1_687)).toBeLessThanOrEqual(2);
    expect(first(bare)).toBeLessThan(1_000);
    const faithful = (run: typeof report) => {
      const note = run.notes.find((line) => line.startsWith('faithfulness:'))!;
      return Number(/\(([\d.]+)×\)/.exec(note)![1]);
    };
    expect(Math.abs(faithful(report) - 1)).toBeLessThanOrEqual(0.1);
    expect(Math.abs(faithful(bare) - 1)).toBeGreaterThan(0.1);
    expect(report.notes.some((line) => /^provider cache losses: [1-9]\d* of 120 recorded requests/.test(line))).toBe(
      true,
    );
  });

  it("the recording's first compaction sets native's reserve: the window less its largest prompt before", () => {
    const responses = [usage(10, 0, 1_000), usage(10, 1_000, 60_000), usage(10, 61_000, 90_000), usage(10, 0, 20_000)];
    expect(firstRecordedCompaction({ responses }, 4)).toEqual({ beforeResponse: 3, largestPromptTokens: 151_010 });
    // Cut before the compaction, the same recording shows none.
    expect(firstRecordedCompaction({ responses }, 3)).toBeUndefined();
    expect(recordedCompactionReserve({ beforeResponse: 3, largestPromptTokens: 151_010 }, 183_616)).toBe(32_606);
    // A recorder that compacted above the window the replay gives Pi leaves Pi's default.
    expect(recordedCompactionReserve({ beforeResponse: 3, largestPromptTokens: 190_000 }, 183_616)).toBeUndefined();
    expect(recordedCompactionReserve(undefined, 183_616)).toBeUndefined();
  });

  it("a recording that never compacted past Pi's default threshold keeps native from compacting below its largest prompt", () => {
    const growing = [usage(10, 0, 20_000), usage(10, 20_000, 100_000), usage(10, 120_000, 50_000)];
    // 170,010 tokens, above 183,616 less Pi's 16,384: native's threshold goes 5 % above it.
    expect(neverCompactedReserve({ responses: growing }, 3, 183_616)).toEqual({
      reserveTokens: 183_616 - Math.ceil(170_010 * 1.05),
      largestPromptTokens: 170_010,
    });
    // Past the window itself: the least reserve Pi is given.
    expect(
      neverCompactedReserve({ responses: [...growing, usage(10, 170_000, 25_000)] }, 4, 183_616)?.reserveTokens,
    ).toBe(1_024);
    // Well under Pi's threshold, or a recording that compacted: Pi's default, or the compaction's own reserve.
    expect(neverCompactedReserve({ responses: growing }, 2, 183_616)).toBeUndefined();
    expect(neverCompactedReserve({ responses: [...growing, usage(10, 0, 20_000)] }, 4, 183_616)).toBeUndefined();
  });

  it("native compacts where a real Claude Code recording did, not at Pi's default, and bills what the user paid", {
    timeout: 120_000,
  }, async () => {
    // This session compacted before its 197th request, after a prompt of 154,835 tokens, well
    // under where Pi's default reserve would compact in the replay's window.
    const path = join(fixtures, 'claude-code/c7d2069e-c561-4759-8adf-b0745be78c29.jsonl');
    const report = await replayTranscript({ path, arms: ['native'], progress: silent });
    expect(report.notes.join('\n')).toContain(
      'native compaction: the recording first compacted before request 197, after a prompt of 154,835 tokens',
    );
    const native = report.run.arms[0]!;
    let agentRequests = 0;
    let firstSummary: number | undefined;
    for (const row of native.rows) {
      if (row.purpose === 'summary') {
        firstSummary ??= agentRequests;
        continue;
      }
      if (!row.rejected) agentRequests += 1;
    }
    // Pi checks its threshold when a turn ends: native compacts at the end of the turn in which
    // its prompt passed the recorded one (Pi's default reserve waits until request 277).
    expect(firstSummary).toBeGreaterThanOrEqual(196);
    expect(firstSummary).toBeLessThanOrEqual(215);
    const note = report.notes.find((line) => line.startsWith('faithfulness:'))!;
    expect(Math.abs(Number(/\(([\d.]+)×\)/.exec(note)![1]) - 1)).toBeLessThanOrEqual(0.1);
  });

  it('the CLI takes --calibration off, and refuses any other value by name', async () => {
    const path = join(fixtures, 'pi-mono/large-session.jsonl');
    const run = async (value: string) => {
      const out: string[] = [];
      const error: string[] = [];
      const code = await runCli(['replay', path, '--arms', 'native', '--max-requests', '6', '--calibration', value], {
        out: (line) => out.push(line),
        error: (line) => error.push(line),
      });
      return { code, out: out.join('\n'), error: error.join('\n') };
    };
    const off = await run('off');
    expect(off.code).toBe(0);
    expect(off.out).toContain('calibration: off');
    expect(off.out).not.toContain('host block:');
    const wrong = await run('sometimes');
    expect(wrong.code).toBe(2);
    expect(wrong.error).toContain('--calibration must be recorded or off, not "sometimes"');
  });
});
