import { beforeAll, describe, expect, it } from 'vitest';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import { runSdkArm, type SdkLoop } from '../../lab/ai-sdk/run-sdk-arm.ts';
import type { SdkArmName } from '../../lab/ai-sdk/sdk-arms.ts';
import { summarizeArm } from '../../lab/report/index.ts';
import type { ArmResult, LabRun } from '../../lab/report/lab-records.ts';
import { stagedPreset } from '../../lab/workload/presets.ts';
import { runStagedWorkload } from '../../lab/workload/run-staged-workload.ts';

const preset = stagedPreset('smoke');
const ARMS: readonly SdkArmName[] = ['unmanaged', 'prune', 'prune-held', 'server-clear', 'fold', 'fold-eager'];
const FOLD_ARMS: readonly SdkArmName[] = ['fold', 'fold-eager'];

function runWith(arms: readonly SdkArmName[], loop: SdkLoop = 'generate-text'): Promise<LabRun> {
  return runStagedWorkload({
    preset,
    seed: 1,
    arms,
    runArm: (input) => runSdkArm({ ...input, arm: input.arm as SdkArmName, loop }),
  });
}

let run: LabRun;
const arm = (name: SdkArmName): ArmResult => {
  const found = run.arms.find((result) => result.arm === name);
  if (found === undefined) throw new Error(`arm ${name} missing`);
  return found;
};
const questionsLost = (result: ArmResult): number => (result.probes?.lost ?? 0) + (result.workingSet?.lost ?? 0);
const recoveryDollars = (result: ArmResult): number =>
  result.rows.filter((row) => row.purpose === 'recovery').reduce((sum, row) => sum + row.costUsd, 0);

describe('the AI SDK lab: the staged assignment through generateText, arm by arm', () => {
  beforeAll(async () => {
    run = await runWith(ARMS);
  }, 120_000);

  it('unmanaged sends the whole history until the provider refuses it', () => {
    const unmanaged = arm('unmanaged');
    expect(unmanaged.failure).toMatch(/exceeds the context window/);
    expect(unmanaged.rows.at(-1)?.rejected).toBe(true);
    expect(unmanaged.compactions).toBe(0);
  });

  it("pi-fold's arms stay under the budget, land folds, attribute every rewrite and lose nothing", () => {
    for (const name of FOLD_ARMS) {
      const result = arm(name);
      expect(result.failure, name).toBeUndefined();
      expect(result.foldEvents, name).toBeGreaterThan(0);
      expect(result.rewritesUnattributed, name).toBe(0);
      for (const row of result.rows) expect(row.promptTokens, name).toBeLessThanOrEqual(preset.descriptorTokens);
      expect(questionsLost(result), name).toBe(0);
    }
  });

  it('the lossy arms edit the prompt, and what they cut is read again and billed', () => {
    for (const name of ['prune', 'server-clear'] as const) {
      const result = arm(name);
      expect(result.failure, name).toBeUndefined();
      expect(result.compactions, `${name}: edits attributed to the arm`).toBeGreaterThan(0);
      expect(result.foldEvents, name).toBe(0);
      const { fileRereads, stageRereads } = result.recoveryCalls!;
      expect(fileRereads + stageRereads, `${name}: re-reads of what it cut`).toBeGreaterThan(0);
      expect(recoveryDollars(result), name).toBeGreaterThan(0);
    }
  });

  it('server-side clearing shrinks a prompt the client sent whole', () => {
    const cleared = arm('server-clear');
    const shrank = cleared.rows.some(
      (row, index) => index > 0 && !row.rejected && row.promptTokens < cleared.rows[index - 1]!.promptTokens,
    );
    expect(shrank).toBe(true);
  });

  it('every question of every arm is counted as correct, recovered or lost', () => {
    for (const result of run.arms) {
      const probes = result.probes!;
      expect(probes.correct + probes.recovered + probes.lost, result.arm).toBe(probes.asked);
      expect(probes.asked, result.arm).toBeGreaterThan(0);
      expect(summarizeArm(result, PRICE_LISTS[run.settings.priceList]!).costUsd, result.arm).toBeGreaterThan(0);
    }
  });

  it("reports the bound on the fold arm's own requests, lined up with each, and under fold's cost", () => {
    const bound = run.bound;
    expect(bound, 'the fold arm reported its prompts').toBeDefined();
    expect(bound!.arm).toBe('fold');
    expect(bound!.unalignedRequests).toBe(0);
    expect(bound!.requests).toBe(arm('fold').rows.filter((row) => !row.rejected).length);
    const foldCost = summarizeArm(arm('fold'), PRICE_LISTS[run.settings.priceList]!).costUsd;
    // Fold's own windows without its messages sit between the bound and fold's cost.
    expect(bound!.costUsd).toBeGreaterThan(0);
    expect(bound!.armWindowsUsd!).toBeGreaterThanOrEqual(bound!.costUsd);
    expect(bound!.armWindowsUsd!).toBeLessThanOrEqual(foldCost);
  });

  it('a ToolLoopAgent runs the fold arm request for request as generateText does', async () => {
    const agentRun = await runWith(['fold'], 'tool-loop-agent');
    const viaAgent = agentRun.arms[0]!;
    expect(viaAgent.failure).toBeUndefined();
    expect(viaAgent.rows.map((row) => [row.promptTokens, row.cacheRead, row.event])).toEqual(
      arm('fold').rows.map((row) => [row.promptTokens, row.cacheRead, row.event]),
    );
  }, 60_000);
});
