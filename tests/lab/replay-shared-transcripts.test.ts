import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { responsesInFile } from './support/file-responses.ts';

const shared = resolve(import.meta.dirname, '../../../shared/transcripts');

/** Run the real CLI and capture what it prints. */
async function replayCli(argumentsList: string[]): Promise<{ code: number; out: string; error: string }> {
  const out: string[] = [];
  const error: string[] = [];
  const code = await runCli(['replay', ...argumentsList], { out: (line) => out.push(line), error: (line) => error.push(line) });
  return { code, out: out.join('\n'), error: error.join('\n') };
}

describe('replay of the shared real transcripts', () => {
  it.each([
    'pi-mono/large-session.jsonl',
    'pi-mono/before-compaction.jsonl',
    'claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl',
    'claude-code/c7d2069e-c561-4759-8adf-b0745be78c29.jsonl',
  ])('%s completes and its report counts one request per recorded response', { timeout: 240_000 }, async (file) => {
    const path = join(shared, file);
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
    expect(summary.notes.join('\n')).toContain(`fold: ${expected.responses} agent requests answered for ${expected.responses} recorded responses; gaps`);
    const timings = JSON.parse(readFileSync(join(outDirectory, 'replay-timings.json'), 'utf8'));
    expect(timings.measurements['peak rss (MB)']).toBeGreaterThan(0);
    expect(existsSync(join(outDirectory, 'replay-report.html'))).toBe(true);
    expect(result.out).toMatch(/^metric\s+fold\s+×native/m);
    expect(result.out).toContain('no native arm in this run');
  });
});
