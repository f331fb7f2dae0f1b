import { beforeAll, describe, expect, it } from 'vitest';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import { SEED_BAND } from '../../lab/arms/arms.ts';
import { stableSummaryJson, summarizeArm } from '../../lab/report/index.ts';
import type { ArmName, ArmResult, LabRun } from '../../lab/report/lab-records.ts';
import { stagedPreset } from '../../lab/workload/presets.ts';
import { runStagedWorkload } from '../../lab/workload/run-staged-workload.ts';
import { zodSourceTree } from '../../lab/workload/source-tree.ts';
import { planAssignment } from '../../lab/workload/stage-plan.ts';

const ARMS: readonly ArmName[] = ['unmanaged', 'native', 'fold', 'fold-band', 'fold-immediate', 'fold-eager', 'oracle'];
const FOLD_ARMS: readonly ArmName[] = ['fold', 'fold-band', 'fold-immediate', 'fold-eager'];
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
    for (const name of FOLD_ARMS) {
      const result = arm(name);
      expect(result.failure, name).toBeUndefined();
      for (const row of result.rows)
        expect(row.promptTokens, `${name} request ${row.index}`).toBeLessThanOrEqual(preset.descriptorTokens);
      expect(result.rows.some((row) => row.rejected)).toBe(false);
      expect(result.compactions).toBe(0);
      expect(result.foldEvents).toBeGreaterThan(0);
      // pi-fold alone in the session, real provider payloads: no ownership warning (no false alarm on real files).
      expect(result.ownershipWarnings, name).toBe(0);
    }
  });

  it('every rewrite in a fold arm is attributed to a commit', () => {
    for (const name of FOLD_ARMS) {
      const result = arm(name);
      expect(result.rewritesUnattributed, name).toBe(0);
      expect(result.rewritesAttributed, name).toBeGreaterThan(0);
      for (const row of result.rows)
        if (row.purpose !== 'summary' && row.event !== 'append')
          expect(row.event, `${name} request ${row.index}`).toBe('commit');
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
    for (const name of FOLD_ARMS) expect(arm(name).probes!.lost, name).toBe(0);
  });

  it('each fold arm ran with its own settings, read back from the runtime', () => {
    expect(arm('fold-band').foldSettings!.thresholds).toMatchObject({
      maxTarget: SEED_BAND.maxTarget,
      minTarget: SEED_BAND.minTarget,
    });
    expect(arm('fold-band').foldSettings!.scheduling).toBe('band');
    expect(arm('fold-immediate').foldSettings!.scheduling).toBe('immediate');
    expect(arm('fold-eager').foldSettings!.scheduling).toBe('eager');
    // The default is core's own: no scheduling asked, whatever core's default policy is.
    expect(arm('fold').foldSettings!.scheduling).not.toMatch(/^(band|immediate|eager)$/);
    // The eager ablation folds every closed unit: more fold events and rewrites than the default.
    expect(arm('fold-eager').foldEvents).toBeGreaterThan(arm('fold').foldEvents);
    expect(arm('fold-eager').rewritesAttributed).toBeGreaterThan(arm('fold').rewritesAttributed);
  });

  it("every arm's cost split adds up to its cost, part by part as the rows bill it", () => {
    const ledger = PRICE_LISTS['gpt-5.6-ledger']!;
    for (const result of run.arms) {
      const split = summarizeArm(result, ledger).costSplit;
      const billed = result.rows.filter((row) => !row.rejected);
      // Independent of the split code: the provider's own per-request dollars, and the smoke preset never crosses the 272k tier.
      const total = billed.reduce((sum, row) => sum + row.costUsd, 0);
      const parts = Object.values(split).reduce((sum, part) => sum + part, 0);
      expect(parts, result.arm).toBeCloseTo(total, 5);
      for (const part of Object.values(split)) expect(part).toBeGreaterThanOrEqual(0);
      const agentRows = billed.filter((row) => row.purpose !== 'summary');
      const perMillion = (tokens: number, rate: number): number => (tokens * rate) / 1_000_000;
      expect(split.summaryCallsUsd, result.arm).toBeCloseTo(
        billed.filter((row) => row.purpose === 'summary').reduce((sum, row) => sum + row.costUsd, 0),
        5,
      );
      expect(split.rewriteFreshUsd, result.arm).toBeCloseTo(
        perMillion(
          agentRows.filter((row) => row.event !== 'append').reduce((sum, row) => sum + row.freshInput, 0),
          ledger.base.input,
        ),
        5,
      );
      expect(split.appendedFreshUsd, result.arm).toBeCloseTo(
        perMillion(
          agentRows.filter((row) => row.event === 'append').reduce((sum, row) => sum + row.freshInput, 0),
          ledger.base.input,
        ),
        5,
      );
      expect(split.cacheReadUsd, result.arm).toBeCloseTo(
        perMillion(
          agentRows.reduce((sum, row) => sum + row.cacheRead, 0),
          ledger.base.cacheRead,
        ),
        5,
      );
      expect(split.longContextSurchargeUsd, result.arm).toBe(0);
    }
    expect(summarizeArm(arm('native')).costSplit.summaryCallsUsd).toBeGreaterThan(0);
    expect(summarizeArm(arm('fold-eager')).costSplit.rewriteFreshUsd).toBeGreaterThan(0);
  });

  it('the working-set rule: an eager arm pays recovery reads the default does not, and nobody loses a check', () => {
    const planned = planAssignment(zodSourceTree(), preset, SEED).checkKey.size;
    expect(planned).toBeGreaterThan(0);
    const eager = summarizeArm(arm('fold-eager'));
    const fold = summarizeArm(arm('fold'));
    expect(eager.recovery.reads).toBeGreaterThan(fold.recovery.reads);
    expect(eager.recovery.requests).toBeGreaterThan(fold.recovery.requests);
    expect(eager.recovery.usd).toBeGreaterThan(fold.recovery.usd);
    expect(eager.workingSet!.recovered).toBeGreaterThan(fold.workingSet!.recovered);
    for (const name of [...FOLD_ARMS, 'native', 'oracle'] as const) {
      const checks = arm(name).workingSet!;
      expect(checks.asked, name).toBe(planned);
      expect(checks.lost, name).toBe(0);
    }
    // Seeing everything, the oracle quotes every line straight from its window.
    expect(arm('oracle').workingSet!.correct).toBe(planned);
    // A recovery request is a billed row carrying text read back.
    expect(arm('fold-eager').rows.filter((row) => row.purpose === 'recovery').length).toBe(eager.recovery.requests);
  });

  it('native hits the provider cap inside the turn and Pi compacts, with billed summary calls', () => {
    const native = arm('native');
    expect(native.failure).toBeUndefined();
    expect(native.rows.some((row) => row.rejected)).toBe(true);
    expect(native.compactions).toBeGreaterThanOrEqual(1);
    expect(native.rows.some((row) => row.purpose === 'summary' && row.costUsd > 0)).toBe(true);
    expect(native.rewritesUnattributed).toBe(0);
    for (const row of native.rows.filter((candidate) => !candidate.rejected))
      expect(row.promptTokens).toBeLessThanOrEqual(preset.providerCapTokens);
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
