import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { replayTranscript } from '../../lab/replay/replay-transcript.ts';
import { responsesInFile } from './support/file-responses.ts';

const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts');
const silent = { write: () => true, isTTY: false };

async function replayCli(argumentsList: string[]): Promise<{ code: number; out: string; error: string }> {
  const out: string[] = [];
  const error: string[] = [];
  const code = await runCli(['replay', ...argumentsList], {
    out: (line) => out.push(line),
    error: (line) => error.push(line),
  });
  return { code, out: out.join('\n'), error: error.join('\n') };
}

/** The first `lineCount` lines of a real Claude Code transcript with garbage lines between them. */
function transcriptWithGarbage(lineCount: number): { path: string; garbage: number } {
  const lines = readFileSync(join(fixtures, 'claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl'), 'utf8')
    .split('\n')
    .slice(0, lineCount);
  const mixed: string[] = [];
  let garbage = 0;
  lines.forEach((line, position) => {
    mixed.push(line);
    if (position % 15 === 7) {
      mixed.push(position % 2 === 0 ? '{"type":"assistant","message":{"id":"broken' : 'not json at all ]]');
      garbage += 1;
    }
  });
  mixed.push('[1,2,3]');
  garbage += 1;
  const path = join(mkdtempSync(join(tmpdir(), 'replay-garbage-')), 'session.jsonl');
  writeFileSync(path, `${mixed.join('\n')}\n`);
  return { path, garbage };
}

describe('replay inputs', () => {
  it('a file with garbage lines reports how many and still replays every response', { timeout: 120_000 }, async () => {
    const { path, garbage } = transcriptWithGarbage(120);
    const expected = responsesInFile(path);
    expect(expected.responses).toBeGreaterThan(10);
    const report = await replayTranscript({ path, arms: ['unmanaged', 'native', 'fold'], progress: silent });
    expect(report.session.malformedLines.length).toBe(garbage);
    expect(report.session.malformedLines.length).toBe(expected.malformed + 1);
    expect(report.notes.join('\n')).toContain(`malformed lines skipped: ${garbage}`);
    for (const arm of report.arms) {
      expect(arm.result.failure, arm.result.arm).toBeUndefined();
      expect(arm.answeredAgentRequests).toBe(expected.responses);
      expect(arm.result.rows.filter((row) => row.purpose === 'summary').length + expected.responses).toBe(
        arm.result.rows.filter((row) => !row.rejected).length,
      );
    }
    expect(report.memory.peakRssBytes).toBeGreaterThan(report.memory.peakHeapUsedBytes);
    expect(report.measurements['peak rss (MB)']).toBeGreaterThan(0);
  });

  it('an unknown file format is refused by name with a usage exit, and nothing is written', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'replay-unknown-'));
    const path = join(directory, 'notes.jsonl');
    writeFileSync(path, '{"kind":"note","text":"hello"}\n{"kind":"note","text":"again"}\n');
    const outDirectory = join(directory, 'out');
    const unknown = await replayCli([path, '--out', outDirectory]);
    expect(unknown.code).toBe(2);
    expect(unknown.error).toMatch(
      /pi-fold replay: .*notes\.jsonl: not a Pi session .*, a Claude Code transcript .*, a Codex rollout .* nor a chat trajectory/,
    );
    expect(() => readFileSync(join(outDirectory, 'replay-summary.json'))).toThrow(/ENOENT/);

    const missing = await replayCli([join(directory, 'absent.jsonl')]);
    expect(missing.code).toBe(2);
    expect(missing.error).toMatch(/TRANSCRIPT.NOT_FOUND: no transcript at .*absent\.jsonl/);

    const badArm = await replayCli([path, '--arms', 'fold,everything']);
    expect(badArm.code).toBe(2);
    expect(badArm.error).toMatch(/unknown lab arm "everything"/);
  });
});
