import { beforeAll, describe, expect, it } from 'vitest';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import { runSdkArm } from '../../lab/ai-sdk/run-sdk-arm.ts';
import type { SdkArmName } from '../../lab/ai-sdk/sdk-arms.ts';
import { costLossRows, formatCostLossTable } from '../../lab/report/cost-loss.ts';
import { summarizeArm } from '../../lab/report/index.ts';
import type { ArmResult, LabRun } from '../../lab/report/lab-records.ts';
import { labWorkload, runLabWorkload, SHAPED_PRESETS } from '../../lab/workload/lab-workload.ts';
import { ProjectState } from '../../lab/workload/shaped/project-state.ts';
import { needOutcome } from '../../lab/workload/shaped/run-shaped-workload.ts';
import type { ShapedAgentLog } from '../../lab/workload/shaped/shaped-agent.ts';
import { measuredToolMix, planShapedAssignment } from '../../lab/workload/shaped/shaped-plan.ts';
import { zodSourceTree } from '../../lab/workload/source-tree.ts';
import { apportion, CALL_KINDS } from '../../lab/workload/tool-mix.ts';

const tree = zodSourceTree();
const smoke = SHAPED_PRESETS['shaped-smoke']!;

const log = (recovered: string[], reasked: string[]): ShapedAgentLog => ({
  recovered: new Set(recovered),
  reasked: new Set(reasked),
  recoveryReads: { peeks: 0, searches: 0, fileRereads: 0, stageRereads: 0, commandReruns: 0 },
});

describe('a question ends correct, recovered, stale or lost', () => {
  it('the right line from the window is correct, after a recovery recovered', () => {
    expect(needOutcome('Tests 3 failed', 'Tests 3 failed', 'W2a', log([], []))).toBe('correct');
    expect(needOutcome('Tests 3 failed', 'Tests 3 failed', 'W2a', log(['W2a'], []))).toBe('recovered');
    // Asked again and the tool still says the same: recovered, not stale.
    expect(needOutcome('Tests 3 failed', 'Tests 3 failed', 'W2a', log(['W2a'], ['W2a']))).toBe('recovered');
  });

  it('another line from a tool asked again is stale; unknown, no answer or a wrong one otherwise is lost', () => {
    expect(needOutcome('Tests 3 failed', 'Tests 1 failed', 'W2a', log(['W2a'], ['W2a']))).toBe('stale');
    expect(needOutcome('Tests 3 failed', 'unknown', 'W2a', log(['W2a'], ['W2a']))).toBe('lost');
    expect(needOutcome('Tests 3 failed', undefined, 'W2a', log([], []))).toBe('lost');
    expect(needOutcome('Tests 3 failed', 'Tests 1 failed', 'W2a', log([], []))).toBe('lost');
  });
});

describe("the shaped workload's project: a state that moves", () => {
  it('a read after an edit differs from the read before it; the log grows; the test run follows the edits', () => {
    const project = new ProjectState(tree, 1, 20);
    const path = tree.files.find((file) => file.bytes > 2000 && file.bytes < 16_000)!.path;
    const before = project.read(path);
    const beforeLog = project.shell('tail -n 40 logs/dev.log');
    const runs = new Set<string>();
    for (let edit = 0; edit < 20; edit += 1) {
      // Its header names the edits landed and its timings move: what is left is which tests pass.
      runs.add(
        project
          .shell('npm test')
          .split('\n')
          .slice(1)
          .join('\n')
          .replace(/\d+ms|Duration .*$/gm, ''),
      );
      project.edit(path, 3, `const inserted_${edit} = ${edit};`);
    }
    expect(project.read(path)).not.toBe(before);
    expect(project.read(path).split('\n')[3]).toBe('const inserted_19 = 19;');
    expect(project.shell('tail -n 40 logs/dev.log')).not.toBe(beforeLog);
    // Suites break and heal as edits land: more than one distinct outcome, timings aside.
    expect(runs.size).toBeGreaterThan(1);
    expect(project.shell('git status --short')).toContain(path);
  });

  it('the same calls in the same order give the same bytes (every arm sees one project)', () => {
    const plan = planShapedAssignment(tree, smoke, 1);
    const again = planShapedAssignment(tree, smoke, 1);
    expect(again.stages.flat().map((call) => call.output)).toEqual(plan.stages.flat().map((call) => call.output));
  });
});

describe("the shaped preset follows the counting script's measurements", () => {
  const measured = measuredToolMix();
  for (const preset of [smoke, SHAPED_PRESETS.shaped!]) {
    it(`${preset.name}: the call kinds are the measured mix, apportioned`, () => {
      const plan = planShapedAssignment(tree, preset, 1);
      const calls = plan.stages.flat();
      const expected = apportion(calls.length, measured.calls);
      for (const kind of CALL_KINDS)
        expect(calls.filter((call) => call.kind === kind).length, kind).toBe(expected[kind]);
    });

    it(`${preset.name}: every read of a file that changes is followed by an edit of it; the others never are`, () => {
      const calls = planShapedAssignment(tree, preset, 1).stages.flat();
      calls.forEach((call, position) => {
        if (call.tool !== 'read') return;
        const editedLater = calls
          .slice(position + 1)
          .some((later) => later.tool === 'edit' && later.arguments.path === call.arguments.path);
        expect(editedLater, `${call.stage}.${call.index} ${call.kind}`).toBe(call.kind === 'read-changed');
      });
    });

    it(`${preset.name}: the needs' sources follow the measured references, within one a kind`, () => {
      const plan = planShapedAssignment(tree, preset, 1);
      const expected = apportion(plan.needs.length, measured.references);
      for (const kind of CALL_KINDS) {
        const count = plan.needs.filter((need) => need.sourceKind === kind).length;
        expect(Math.abs(count - expected[kind]), kind).toBeLessThanOrEqual(1);
      }
      // The key holds each line as the tool gave it then.
      for (const need of plan.needs) {
        const call = plan.stages[need.source.stage - 1]![need.source.index - 1]!;
        expect(plan.answerKey.get(need.id)).toBe(call.output.split('\n')[need.line - 1]!.trim());
      }
    });
  }
});

describe('the shaped lab through the AI SDK: stale answers are scored', () => {
  let run: LabRun;
  const arm = (name: string): ArmResult => run.arms.find((result) => result.arm === name)!;
  const outcome = (result: ArmResult) => ({
    stale: (result.probes?.stale ?? 0) + (result.workingSet?.stale ?? 0),
    lost: (result.probes?.lost ?? 0) + (result.workingSet?.lost ?? 0),
    recovered: (result.probes?.recovered ?? 0) + (result.workingSet?.recovered ?? 0),
    asked: (result.probes?.asked ?? 0) + (result.workingSet?.asked ?? 0),
    correct: (result.probes?.correct ?? 0) + (result.workingSet?.correct ?? 0),
  });

  beforeAll(async () => {
    run = await runLabWorkload(labWorkload('shaped-smoke'), {
      seed: 1,
      arms: ['prune', 'fold'],
      runArm: (input) => runSdkArm({ ...input, arm: input.arm as SdkArmName }),
    });
  }, 120_000);

  it('prune cuts what it asks about later; asking the tool again gives what it says now, and that is stale', () => {
    const prune = outcome(arm('prune'));
    expect(prune.stale).toBeGreaterThan(0);
    expect(arm('prune').recoveryCalls?.commandReruns).toBeGreaterThan(0);
    expect(prune.correct + prune.recovered + prune.stale + prune.lost).toBe(prune.asked);
  });

  it('fold recovers the folded originals: nothing stale, nothing lost', () => {
    const fold = outcome(arm('fold'));
    expect(fold.recovered).toBeGreaterThan(0);
    expect(fold.stale).toBe(0);
    expect(fold.lost).toBe(0);
    expect(fold.correct + fold.recovered).toBe(fold.asked);
  });

  it('the report leads with cost beside questions lost and stale', () => {
    const summaries = run.arms.map((result) => summarizeArm(result, PRICE_LISTS['gpt-5.6-ledger']!));
    const rows = costLossRows(summaries, 'prune');
    expect(rows.map((row) => [row.arm, row.stale])).toEqual([
      ['prune', outcome(arm('prune')).stale],
      ['fold', 0],
    ]);
    const table = formatCostLossTable(rows, 'prune');
    expect(table[1]).toMatch(/^arm +cost +×prune +questions +lost +stale/);
  });
});
