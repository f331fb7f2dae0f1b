import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { recordedTimes } from '../../lab/replay/replay-clock.ts';
import { buildReplayPlan } from '../../lab/replay/replay-plan.ts';
import { replayTranscript } from '../../lab/replay/replay-transcript.ts';
import type { RequestRow } from '../../lab/report/lab-records.ts';
import { loadTranscript } from '../../lab/transcripts/load-transcript.ts';
import { agentRows, retimedClaudeSession } from './support/retimed-claude-session.ts';

const silent = { write: () => true, isTTY: false };
const retimedSession = (lineCount: number, idleBefore: number, idleMinutes: number): string =>
  retimedClaudeSession({ lineCount, idleBefore, idleMinutes });

describe('the replay clock', () => {
  it('takes each response time from the file, in order, and counts the gaps over the cache lifetime', async () => {
    const path = retimedSession(200, 20, 7);
    const plan = buildReplayPlan(await loadTranscript(path));
    const times = recordedTimes(plan, 300)!;
    expect(times.offsetsMs.slice(0, 3)).toEqual([0, 10_000, 20_000]);
    expect(times.offsetsMs[20]! - times.offsetsMs[19]!).toBe(7 * 60_000 + 10_000);
    expect(times.idleGaps).toBe(1);
    // A response without a time leaves the plan without a recorded clock (the replay says so and runs uniform).
    const untimed = {
      turns: plan.turns.map((turn, position) =>
        position === 0 ? { ...turn, responses: turn.responses.map(({ time: _time, ...rest }) => rest) } : turn,
      ),
    };
    expect(recordedTimes(untimed, 300)).toBeUndefined();
  });

  it('a recorder clock stepping back counts as no time passing', () => {
    const turns = [
      {
        prompt: 'p',
        synthetic: false,
        responses: [1_000, 5_000, 4_000, 400_000].map((time, order) => ({
          order,
          entryIndex: order,
          text: '',
          toolCalls: [],
          time,
        })),
      },
    ];
    expect(recordedTimes({ turns }, 300)).toEqual({ offsetsMs: [0, 4_000, 4_000, 399_000], idleGaps: 1 });
  });

  it("an idle gap expires every arm's cache and the fold arm commits there for free; on the uniform clock neither happens", {
    timeout: 180_000,
  }, async () => {
    const idleBefore = 60;
    const path = retimedSession(260, idleBefore, 12);
    const recorded = await replayTranscript({ path, arms: ['native', 'fold'], maxRequests: 70, progress: silent });
    const uniform = await replayTranscript({
      path,
      arms: ['native', 'fold'],
      maxRequests: 70,
      progress: silent,
      clock: 'uniform',
    });
    expect(recorded.notes.join('\n')).toContain('clock: recorded request times; 1 idle gap(s)');
    expect(uniform.notes.join('\n')).toContain('clock: uniform, 15 s per request (--clock uniform)');

    const nativeRecorded = agentRows(recorded, 'native');
    const nativeUniform = agentRows(uniform, 'native');
    expect(nativeRecorded[idleBefore]!.cacheRead).toBe(0);
    expect(nativeUniform[idleBefore]!.cacheRead).toBeGreaterThan(0);
    // Before the gap both clocks bill alike.
    expect(nativeRecorded.slice(0, idleBefore).map((row) => row.cacheRead)).toEqual(
      nativeUniform.slice(0, idleBefore).map((row) => row.cacheRead),
    );

    const foldRecorded = agentRows(recorded, 'fold');
    const foldUniform = agentRows(uniform, 'fold');
    expect(foldUniform[idleBefore]!.event).toBe('append');
    expect(foldRecorded[idleBefore]!.event).toBe('commit');
    expect(foldRecorded[idleBefore]!.promptTokens).toBeLessThan(foldRecorded[idleBefore - 1]!.promptTokens);
    expect(foldRecorded[idleBefore]!.cacheRead).toBe(0);
    // Against native, which pays the whole window fresh at the gap, the fold arm gains from it.
    const cost = (rows: RequestRow[]): number => rows.reduce((sum, row) => sum + row.costUsd, 0);
    expect(cost(foldRecorded) / cost(nativeRecorded)).toBeLessThan(cost(foldUniform) / cost(nativeUniform));
  });

  it('the command line takes --clock recorded or uniform and refuses anything else by name', async () => {
    const out: string[] = [];
    const error: string[] = [];
    const code = await runCli(['replay', retimedSession(40, 5, 7), '--clock', 'sometimes'], {
      out: (line) => out.push(line),
      error: (line) => error.push(line),
    });
    expect(code).toBe(2);
    expect(error.join('\n')).toMatch(/pi-fold replay: --clock must be recorded or uniform, not "sometimes"/);
    expect(out).toEqual([]);
    const uniform: string[] = [];
    expect(
      await runCli(['replay', retimedSession(40, 5, 7), '--arms', 'native', '--clock', 'uniform'], {
        out: (line) => uniform.push(line),
        error: () => undefined,
      }),
    ).toBe(0);
    expect(uniform.join('\n')).toContain('note: clock: uniform, 15 s per request (--clock uniform)');
  });

  it('--clock recorded on a file without times is refused by name', async () => {
    const path = resolve(import.meta.dirname, 'fixtures/mini-swe-agent-toolcall.traj.json');
    await expect(replayTranscript({ path, arms: ['native'], progress: silent, clock: 'recorded' })).rejects.toThrow(
      /--clock recorded: .*does not give every response a time/,
    );
    const report = await replayTranscript({ path, arms: ['native'], progress: silent });
    expect(report.notes.join('\n')).toContain(
      'clock: uniform, 15 s per request (the file does not give every response a time)',
    );
  });
});
