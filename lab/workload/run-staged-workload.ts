import { createReadToolDefinition } from '@mariozechner/pi-coding-agent';
import type { LabRun, LabRunSettings, ProbeScore, WorkingSetScore } from '../report/lab-records.ts';
import { type ArmsInTurnOptions, assignmentSettings, runArmsInTurn } from './run-arms-in-turn.ts';
import { zodSourceTree } from './source-tree.ts';
import { type AssignmentPlan, planAssignment, type StagedPreset } from './stage-plan.ts';
import { AnswerSheet, createAnswerTool, createStageTool } from './stage-tools.ts';
import { type AgentLog, createStagedAgent, recoveryCalls } from './staged-agent.ts';

/** The one user message of the assignment. */
export function assignmentPrompt(plan: AssignmentPlan): string {
  return [
    `Staged assignment over ${plan.tree.label}: call repo_stage for stages 1 to ${plan.preset.stages} in order, then stage ${plan.preset.stages + 1} for the final questions.`,
    'Each stage names files to read with the read tool; note one finding per file. Stages plant markers that later questions ask about: answer them with submit_answers.',
  ].join('\n');
}

export interface StagedRunOptions extends ArmsInTurnOptions {
  readonly preset: StagedPreset;
  readonly seed: number;
  readonly priceList?: string;
}

/** The run's settings, as every report prints them. */
export function stagedSettings(preset: StagedPreset, seed: number, priceList?: string): LabRunSettings {
  return assignmentSettings(`staged-${preset.stages}`, preset, seed, priceList);
}

/** Run the staged assignment through every arm, one after the other, same plan and seed. */
export async function runStagedWorkload(options: StagedRunOptions): Promise<LabRun> {
  const tree = zodSourceTree();
  const plan = planAssignment(tree, options.preset, options.seed);
  const settings = stagedSettings(options.preset, options.seed, options.priceList);
  return runArmsInTurn(options, {
    settings,
    prompt: assignmentPrompt(plan),
    cwd: tree.root,
    startArm: () => {
      const sheet = new AnswerSheet();
      const agent = createStagedAgent(plan);
      return {
        tools: [createReadToolDefinition(tree.root), createStageTool(plan, sheet), createAnswerTool(sheet)],
        policy: agent.policy,
        // Two requests per stage, the final block, and about one per question for answers and recoveries.
        expectedRequests: options.preset.stages * 2 + 2 + plan.answerKey.size + plan.checkKey.size / 2,
        score: (result) => ({
          ...result,
          probes: scoreProbes(plan, sheet, agent.log),
          workingSet: scoreChecks(plan, sheet, agent.log),
          recoveryCalls: recoveryCalls(agent.log),
        }),
      };
    },
  });
}

/** Every planned question is counted: answered right from the window, right after a recovery, or lost. */
export function scoreProbes(plan: AssignmentPlan, sheet: AnswerSheet, log: AgentLog): ProbeScore {
  let correct = 0;
  let recovered = 0;
  for (const [id, expected] of plan.answerKey) {
    if (sheet.answers.get(id) !== expected) continue;
    if (log.recovered.has(id)) recovered += 1;
    else correct += 1;
  }
  const asked = plan.answerKey.size;
  const { peeks, searches, fileRereads, stageRereads } = log.recoveryReads;
  return {
    asked,
    correct,
    recovered,
    lost: asked - correct - recovered,
    recoveryReads: peeks + searches + fileRereads + stageRereads,
  };
}

/** Every working-set check is counted: the line quoted right from the window, right after a recovery, or lost. */
export function scoreChecks(plan: AssignmentPlan, sheet: AnswerSheet, log: AgentLog): WorkingSetScore {
  let correct = 0;
  let recovered = 0;
  for (const [id, expected] of plan.checkKey) {
    if (sheet.answers.get(id) !== expected) continue;
    if (log.recovered.has(id)) recovered += 1;
    else correct += 1;
  }
  return { asked: plan.checkKey.size, correct, recovered, lost: plan.checkKey.size - correct - recovered };
}
