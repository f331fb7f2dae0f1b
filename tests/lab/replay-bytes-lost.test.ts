import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { replayNativeAgainstFold } from './support/native-fold-replay.ts';

describe('replay: bytes lost per arm (issue 15: "0 bytes lost")', () => {
  it('the fold arm loses 0 of its folded bytes, native loses what its compactions summarised away; in the table, the JSON and the HTML', {
    timeout: 180_000,
  }, async () => {
    const { code, out, outDirectory } = await replayNativeAgainstFold('replay-bytes-out-');
    expect(code).toBe(0);
    const summary = JSON.parse(readFileSync(join(outDirectory, 'replay-summary.json'), 'utf8'));
    const arm = (name: string) => summary.arms.find((candidate: { arm: string }) => candidate.arm === name);
    const fold = arm('fold').bytes;
    const native = arm('native').bytes;

    expect(fold.folds).toBeGreaterThan(0);
    expect(fold.foldedBytes).toBeGreaterThan(10_000);
    expect(fold.lostBytes).toBe(0);
    expect(fold.problems).toEqual([]);
    expect(arm('native').compactions).toBeGreaterThan(0);
    expect(native.compactedBytes).toBeGreaterThan(0);
    expect(native.lostBytes).toBe(native.compactedBytes);
    // Not equal between arms: each assistant entry carries its own arm's usage counts.
    expect(native.compactedBytes).toBeLessThan(native.transcriptBytes);

    // The fold arm decided with the recorded model's price list, the one the provider billed by.
    expect(summary.settings.priceList).toBe('anthropic/claude-sonnet-4-5-20250929');
    expect(arm('fold').foldSettings.priceList).toBe('anthropic/claude-sonnet-4-5-20250929');

    const text = out.join('\n');
    const foldLine = `fold: bytes lost: 0 (of ${fold.foldedBytes.toLocaleString('en-US')} folded bytes, ${fold.folds} folds`;
    expect(text).toContain(foldLine);
    expect(text).toMatch(
      new RegExp(
        `native: bytes lost: ${native.lostBytes.toLocaleString('en-US')} \\(${native.compactedBytes.toLocaleString('en-US')} bytes of \\d+ entries summarised away by \\d+ compactions?, no longer in the window\\)`,
      ),
    );
    expect(text).toContain('deciding with price list anthropic/claude-sonnet-4-5-20250929');
    const html = readFileSync(join(outDirectory, 'replay-report.html'), 'utf8');
    expect(html).toMatch(/<ul class="bytes-lost"><li>native: bytes lost: [\d,]+ \(/);
    expect(html).toContain(foldLine);
  });
});
