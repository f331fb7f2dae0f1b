import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { responsesInFile } from './support/file-responses.ts';

const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts');

/** Run the real CLI and capture what it prints. */
async function replayCli(argumentsList: string[]): Promise<{ code: number; out: string; error: string }> {
  const out: string[] = [];
  const error: string[] = [];
  const code = await runCli(['replay', ...argumentsList], {
    out: (line) => out.push(line),
    error: (line) => error.push(line),
  });
  return { code, out: out.join('\n'), error: error.join('\n') };
}

describe('replay of the shared real transcripts', () => {
  it.each([
    'pi-mono/large-session.jsonl',
    'pi-mono/before-compaction.jsonl',
    'claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl',
    'claude-code/c7d2069e-c561-4759-8adf-b0745be78c29.jsonl',
  ])('%s completes and its report counts one request per recorded response', { timeout: 240_000 }, async (file) => {
    const path = join(fixtures, file);
    const expected = responsesInFile(path);
    const outDirectory = mkdtempSync(join(tmpdir(), 'replay-report-'));
    const result = await replayCli([path, '--arms', 'fold', '--out', outDirectory]);
    expect(result.code, result.error).toBe(0);
    const summary = JSON.parse(readFileSync(join(outDirectory, 'replay-summary.json'), 'utf8'));
    const [fold] = summary.arms;
    expect(fold.arm).toBe('fold');
    expect(fold.failure).toBeUndefined();
    // The fold arm adds no calls of its own: billed calls are exactly the recorded responses.
    expect(fold.billedCalls).toBe(expected.responses);
    expect(fold.rejectedRequests).toBe(0);
    expect(fold.peakPromptTokens).toBeLessThanOrEqual(summary.settings.descriptorTokens);
    const csvRows = readFileSync(join(outDirectory, 'replay-requests.csv'), 'utf8').trimEnd().split('\n').slice(1);
    expect(csvRows.length).toBe(expected.responses);
    expect(summary.notes.join('\n')).toContain(`malformed lines skipped: ${expected.malformed}`);
    expect(summary.notes.join('\n')).toContain(
      `fold: ${expected.responses} agent requests answered for ${expected.responses} recorded responses; gaps`,
    );
    const timings = JSON.parse(readFileSync(join(outDirectory, 'replay-timings.json'), 'utf8'));
    expect(timings.measurements['peak rss (MB)']).toBeGreaterThan(0);
    expect(existsSync(join(outDirectory, 'replay-report.html'))).toBe(true);
    expect(result.out).toMatch(/^metric\s+fold\s+×native/m);
    expect(result.out).toContain('no native arm in this run');
  });

  it('--max-requests replays a prefix: exactly that many requests, cut mid-turn without a stray request', {
    timeout: 120_000,
  }, async () => {
    const path = join(fixtures, 'pi-mono/before-compaction.jsonl');
    const expected = responsesInFile(path);
    // 101 falls inside a tool loop of this recording (checked: response 100 calls tools).
    const outDirectory = mkdtempSync(join(tmpdir(), 'replay-limited-'));
    const result = await replayCli([path, '--arms', 'native,fold', '--max-requests', '101', '--out', outDirectory]);
    expect(result.code, result.error).toBe(0);
    const summary = JSON.parse(readFileSync(join(outDirectory, 'replay-summary.json'), 'utf8'));
    for (const arm of summary.arms)
      expect(
        readFileSync(join(outDirectory, 'replay-requests.csv'), 'utf8')
          .split('\n')
          .filter((line: string) => line.startsWith(`${arm.arm},`) && line.includes(',agent,')).length,
      ).toBe(101);
    const notes = summary.notes.join('\n');
    expect(notes).toContain(`replayed the first 101 of ${expected.responses} recorded responses (--max-requests 101)`);
    expect(notes).toContain('fold: 101 agent requests answered for 101 recorded responses');
    expect(notes).not.toContain('extra-request');
    const refused = await replayCli([path, '--max-requests', 'many']);
    expect(refused.code).toBe(2);
    expect(refused.error).toContain('--max-requests must be a whole number of at least 1, got "many"');
  });
});
