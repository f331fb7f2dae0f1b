import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { replayTranscript } from '../../lab/replay/replay-transcript.ts';
import { renderHtmlReport } from '../../lab/report/html-report.ts';
import { formatArmTable, stableSummaryJson } from '../../lab/report/index.ts';
import type { ArmName, LabRun } from '../../lab/report/lab-records.ts';
import { stagedPreset } from '../../lab/workload/presets.ts';
import { runStagedWorkload } from '../../lab/workload/run-staged-workload.ts';

const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts');
const silent = { write: () => true };

function cost(run: LabRun, arm: ArmName): number {
  const result = run.arms.find((entry) => entry.arm === arm);
  if (result === undefined) throw new Error(`arm ${arm} missing from the run`);
  expect(result.failure).toBeUndefined();
  return result.rows.reduce((sum, row) => sum + row.costUsd, 0);
}

function agentRequests(run: LabRun, arm: ArmName): number {
  return run.arms.find((entry) => entry.arm === arm)!.rows.filter((row) => row.purpose !== 'summary' && !row.rejected)
    .length;
}

/** The bound is never above an arm that ran, and is reported beside them. */
function expectBoundBelowArms(run: LabRun): void {
  const bound = run.bound;
  expect(bound).toBeDefined();
  expect(bound!.arm).toBe('fold');
  expect(bound!.requests).toBe(agentRequests(run, 'fold'));
  expect(bound!.unalignedRequests).toBe(0);
  expect(bound!.costUsd).toBeGreaterThan(0);
  expect(bound!.costUsd).toBeLessThanOrEqual(cost(run, 'fold'));
  expect(bound!.costUsd).toBeLessThanOrEqual(cost(run, 'native'));
  expect(bound!.commits.length).toBeGreaterThan(0);
  // Fold's own windows without pi-fold's messages cost less than fold: those messages carry tokens.
  expect(bound!.armWindowsUsd).toBeLessThan(cost(run, 'fold'));
  const summary = JSON.parse(stableSummaryJson(run));
  expect(summary.bound.costUsd).toBeCloseTo(bound!.costUsd, 9);
  expect(summary.bound.armOverBound.fold).toBeCloseTo(cost(run, 'fold') / bound!.costUsd, 3);
  const html = renderHtmlReport(run, formatArmTable(run), { title: 'bound', notes: [], measurements: {} });
  expect(html).toContain(`<ul class="bound" id="bound"><li>bound  $${bound!.costUsd.toFixed(2)}`);
  expect(formatArmTable(run)).toMatch(
    /^bound {2}\$\d+\.\d\d {2}· {2}native ÷ bound \d+\.\d\d× · fold ÷ bound \d+\.\d\d×$/m,
  );
}

describe('the cost bound on real runs', () => {
  let lab: LabRun;
  beforeAll(async () => {
    lab = await runStagedWorkload({ preset: stagedPreset('smoke'), seed: 1, arms: ['native', 'fold'] });
  }, 180_000);

  it('lab smoke preset: the bound is below native and fold, on the requests fold made', () => {
    expectBoundBelowArms(lab);
  });

  it('a Claude Code replay at its recorded clock, cache-write premium and token scale: below native and fold', {
    timeout: 240_000,
  }, async () => {
    const report = await replayTranscript({
      path: join(fixtures, 'claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl'),
      arms: ['native', 'fold'],
      progress: silent,
    });
    expectBoundBelowArms(report.run);
  });
});
