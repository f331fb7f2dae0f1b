import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';

const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts');

/** A real Claude Code session: at a 60k budget native compacts several times and fold folds. */
const session = join(fixtures, 'claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl');

interface Counts {
  needs: number;
  visible: number;
  oneCallAway: number;
  reobtainable: number;
  searchable: number;
  lost: number;
  notReached: number;
}

describe('replay: needs lost per arm, beside cost', () => {
  it("scores every need in each arm's real windows; the table, the JSON and the HTML lead with cost and loss", {
    timeout: 240_000,
  }, async () => {
    const outDirectory = join(mkdtempSync(join(tmpdir(), 'replay-needs-out-')), 'out');
    const out: string[] = [];
    const code = await runCli(
      ['replay', session, '--arms', 'native,fold', '--budget', '60000', '--cap', '80000', '--out', outDirectory],
      { out: (line) => out.push(line), error: () => undefined },
    );
    expect(code).toBe(0);
    const summary = JSON.parse(readFileSync(join(outDirectory, 'replay-summary.json'), 'utf8'));
    const rows: { name: string; costUsd?: number; costWithRecoveryUsd?: number; counts: Counts }[] = summary.needs.rows;
    const row = (name: string) => rows.find((candidate) => candidate.name === name)!;
    const native = row('native');
    const fold = row('fold');
    expect(summary.arms.find((arm: { arm: string }) => arm.arm === 'native').compactions).toBeGreaterThan(1);
    for (const { counts } of [native, fold]) {
      expect(counts.needs).toBeGreaterThan(100);
      expect(counts.notReached).toBe(0);
      expect(counts.visible + counts.oneCallAway + counts.reobtainable + counts.searchable + counts.lost).toBe(
        counts.needs,
      );
    }
    // Folding keeps every byte: what is out of view is named in view or held for an exact search.
    expect(fold.counts.lost).toBe(0);
    expect(fold.counts.oneCallAway + fold.counts.searchable).toBeGreaterThan(0);
    // Compaction keeps a summary: what is neither in it nor in the kept tail nor a file to read again is gone.
    expect(native.counts.lost).toBeGreaterThan(0);
    expect(native.counts.oneCallAway).toBe(0);
    expect(native.counts.searchable).toBe(0);
    expect(fold.costWithRecoveryUsd!).toBeGreaterThanOrEqual(fold.costUsd!);

    const text = out.join('\n');
    expect(text.startsWith('cost and loss: ')).toBe(true);
    expect(text).toMatch(new RegExp(`\\nnative +\\| \\$[\\d.]+ +\\| 1\\.00× .*\\| ${native.counts.lost} \\(`));
    const html = readFileSync(join(outDirectory, 'replay-report.html'), 'utf8');
    expect(html.indexOf('id="cost-and-loss"')).toBeGreaterThan(0);
    expect(html.indexOf('id="cost-and-loss"')).toBeLessThan(html.indexOf('class="overlay'));
    expect(html).toContain('<svg class="cost-loss-chart"');
    expect(html).toContain('data-arm="native"');
  });
});
