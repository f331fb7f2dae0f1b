import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayNativeAgainstFold } from './support/native-fold-replay.ts';

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
    const { code, out, outDirectory } = await replayNativeAgainstFold('replay-needs-out-');
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
