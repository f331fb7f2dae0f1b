import { beforeAll, describe, expect, it } from 'vitest';
import type { ArmName, ArmResult, LabRun } from '../../lab/report/lab-records.ts';
import { stableSummaryJson } from '../../lab/report/index.ts';
import { stagedPreset } from '../../lab/workload/presets.ts';
import { runStagedWorkload } from '../../lab/workload/run-staged-workload.ts';
import { planAssignment } from '../../lab/workload/stage-plan.ts';
import { zodSourceTree } from '../../lab/workload/source-tree.ts';

const ARMS: readonly ArmName[] = ['unmanaged', 'native', 'fold', 'fold-immediate', 'oracle'];
const preset = stagedPreset('smoke');
const SEED = 1;
let run: LabRun;

function arm(name: ArmName): ArmResult {
  const found = run.arms.find((result) => result.arm === name);
  if (found === undefined) throw new Error(`arm ${name} missing from the run`);
  return found;
}

describe('lab smoke preset: the staged assignment through every arm in real Pi sessions', () => {
  beforeAll(async () => {
    run = await runStagedWorkload({ preset, seed: SEED, arms: ARMS });
  }, 180_000);

  it('fold arms never send a prompt above the budget, never compact, and land folds', () => {
    for (const name of ['fold', 'fold-immediate'] as const) {
      const result = arm(name);
      expect(result.failure, name).toBeUndefined();
      for (const row of result.rows) expect(row.promptTokens, `${name} request ${row.index}`).toBeLessThanOrEqual(preset.descriptorTokens);
      expect(result.rows.some((row) => row.rejected)).toBe(false);
      expect(result.compactions).toBe(0);
      expect(result.foldEvents).toBeGreaterThan(0);
      // pi-fold alone in the session, real provider payloads: no ownership warning (no false alarm on real files).
      expect(result.ownershipWarnings, name).toBe(0);
    }
  });

  it('every rewrite in a fold arm is attributed to a commit', () => {
    for (const name of ['fold', 'fold-immediate'] as const) {
      const result = arm(name);
      expect(result.rewritesUnattributed, name).toBe(0);
      expect(result.rewritesAttributed, name).toBeGreaterThan(0);
      for (const row of result.rows) if (row.purpose !== 'summary' && row.event !== 'append') expect(row.event, `${name} request ${row.index}`).toBe('commit');
    }
  });

  it('every probe is answered or counted, and the oracle, seeing everything, gets them all', () => {
    const planned = planAssignment(zodSourceTree(), preset, SEED).answerKey.size;
    expect(planned).toBeGreaterThan(preset.finalQuestions);
    for (const result of run.arms) {
      const probes = result.probes!;
      expect(probes.asked, result.arm).toBe(planned);
      expect(probes.correct + probes.recovered + probes.lost, result.arm).toBe(probes.asked);
    }
    expect(arm('oracle').probes!.correct).toBe(planned);
    expect(arm('oracle').probes!.recoveryReads).toBe(0);
    // Fold arms recover folded values by peeking rather than losing them.
    for (const name of ['fold', 'fold-immediate'] as const) expect(arm(name).probes!.lost, name).toBe(0);
  });

  it('native hits the provider cap inside the turn and Pi compacts, with billed summary calls', () => {
    const native = arm('native');
    expect(native.failure).toBeUndefined();
    expect(native.rows.some((row) => row.rejected)).toBe(true);
    expect(native.compactions).toBeGreaterThanOrEqual(1);
    expect(native.rows.some((row) => row.purpose === 'summary' && row.costUsd > 0)).toBe(true);
    expect(native.rewritesUnattributed).toBe(0);
    for (const row of native.rows.filter((candidate) => !candidate.rejected)) expect(row.promptTokens).toBeLessThanOrEqual(preset.providerCapTokens);
  });

  it('unmanaged ends at the first refused prompt; the oracle has no cap and goes past it', () => {
    const unmanaged = arm('unmanaged');
    expect(unmanaged.failure).toMatch(/exceeds the context window/);
    expect(unmanaged.rows.at(-1)!.rejected).toBe(true);
    expect(unmanaged.probes!.lost).toBeGreaterThan(0);
    const oracle = arm('oracle');
    expect(oracle.failure).toBeUndefined();
    expect(Math.max(...oracle.rows.map((row) => row.promptTokens))).toBeGreaterThan(preset.providerCapTokens);
    expect(oracle.rows.every((row) => row.event === 'append')).toBe(true);
  });

  it('the same seed gives the same summary bytes', async () => {
    const again = await runStagedWorkload({ preset, seed: SEED, arms: ARMS });
    expect(stableSummaryJson(again)).toBe(stableSummaryJson(run));
  }, 180_000);
});
