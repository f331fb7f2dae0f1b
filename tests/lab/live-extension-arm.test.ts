import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ArmName } from '../../lab/report/lab-records.ts';
import { stagedPreset } from '../../lab/workload/presets.ts';
import { runStagedWorkload } from '../../lab/workload/run-staged-workload.ts';

const extensionPath = fileURLToPath(new URL('./support/drop-old-results-extension.ts', import.meta.url));
const sessionFilePeer = fileURLToPath(new URL('./support/needs-session-file-extension.ts', import.meta.url));

describe('lab extension arm: any Pi extension file on the same bench', () => {
  it('loads the file through Pi, measures it like the others and flags its silent rewrites', async () => {
    const arm: ArmName = `extension:${extensionPath}`;
    const run = await runStagedWorkload({ preset: stagedPreset('smoke'), seed: 3, arms: ['unmanaged', arm] });
    const [unmanaged, extension] = run.arms;
    expect(extension!.arm).toBe(arm);
    expect(extension!.failure).toBeUndefined();
    // The extension keeps the window small, so it finishes where unmanaged hits the cap.
    expect(unmanaged!.failure).toMatch(/exceeds the context window/);
    expect(Math.max(...extension!.rows.map((row) => row.promptTokens))).toBeLessThan(
      stagedPreset('smoke').providerCapTokens,
    );
    expect(extension!.rewritesUnattributed).toBeGreaterThan(0);
    expect(extension!.probes!.correct + extension!.probes!.recovered + extension!.probes!.lost).toBe(
      extension!.probes!.asked,
    );
  }, 120_000);

  it('an extension arm runs on a session with a file, for peers that keep evidence beside it', async () => {
    const run = await runStagedWorkload({
      preset: stagedPreset('smoke'),
      seed: 3,
      arms: [`extension:${sessionFilePeer}`],
    });
    expect(run.arms[0]!.failure).toBeUndefined();
    expect(run.arms[0]!.fileReads).toBeGreaterThan(0);
  }, 120_000);
});
