import type { LabRun, LabRunSettings, ProbeScore, WorkingSetScore } from '../../report/lab-records.ts';
import { assignmentSettings, runArmsInTurn } from '../run-arms-in-turn.ts';
import type { StagedRunOptions } from '../run-staged-workload.ts';
import { zodSourceTree } from '../source-tree.ts';
import { AnswerSheet, createAnswerTool } from '../stage-tools.ts';
import { createShapedAgent, type ShapedAgentLog } from './shaped-agent.ts';
import { planShapedAssignment, type ShapedNeed, type ShapedPlan, type ShapedPreset } from './shaped-plan.ts';
import { createShapedTools } from './shaped-tools.ts';

/** The one user message of the shaped assignment. */
export function shapedPrompt(plan: ShapedPlan): string {
  return [
    `Assignment over a working copy of ${plan.tree.label}: call repo_stage for stages 1 to ${plan.preset.stages} in order, then stage ${plan.preset.stages + 1} for the final questions.`,
    'Each stage lists tool calls to make (bash, read, edit, grep); make them in order and note what you found. Stages ask about the output of earlier calls as it was then: answer with submit_answers.',
  ].join('\n');
}

export interface ShapedRunOptions extends Omit<StagedRunOptions, 'preset'> {
  readonly preset: ShapedPreset;
}

export function shapedSettings(preset: ShapedPreset, seed: number, priceList?: string): LabRunSettings {
  return assignmentSettings(`shaped-${preset.stages}`, preset, seed, priceList);
}

/** Run the shaped assignment through every arm, one after the other, same plan and seed, each on a fresh working copy. */
export async function runShapedWorkload(options: ShapedRunOptions): Promise<LabRun> {
  const tree = zodSourceTree();
  const plan = planShapedAssignment(tree, options.preset, options.seed);
  const settings = shapedSettings(options.preset, options.seed, options.priceList);
  return runArmsInTurn(options, {
    settings,
    prompt: shapedPrompt(plan),
    cwd: tree.root,
    startArm: () => {
      const sheet = new AnswerSheet();
      const agent = createShapedAgent(options.preset.stages);
      return {
        tools: [...createShapedTools(plan, sheet), createAnswerTool(sheet)],
        policy: agent.policy,
        expectedRequests: options.preset.stages * 3 + 2 + plan.needs.length / 2,
        score: (result) => ({
          ...result,
          ...scoreShapedNeeds(plan, sheet, agent.log),
          recoveryCalls: { ...agent.log.recoveryReads },
        }),
      };
    },
  });
}

/** How one question ended. */
export type NeedOutcome = 'correct' | 'recovered' | 'stale' | 'lost';

/**
 * Every question ends one way: `correct` (the right line, from the window), `recovered` (the
 * right line after a recovery: a fold peeked, or the tool asked again and still saying the
 * same), `stale` (the tool asked again, and it says something else now), or `lost` ("unknown",
 * no answer, or a wrong one not from asking again).
 */
export function needOutcome(
  expected: string,
  answer: string | undefined,
  id: string,
  log: ShapedAgentLog,
): NeedOutcome {
  if (answer === expected) return log.recovered.has(id) ? 'recovered' : 'correct';
  if (answer !== undefined && answer !== 'unknown' && log.reasked.has(id)) return 'stale';
  return 'lost';
}

/** Probes and final questions as `probes`, working-set checks as `workingSet`, each outcome counted. */
export function scoreShapedNeeds(
  plan: ShapedPlan,
  sheet: AnswerSheet,
  log: ShapedAgentLog,
): { probes: ProbeScore; workingSet: WorkingSetScore } {
  const tally = (needs: readonly ShapedNeed[]) => {
    const counts = { asked: needs.length, correct: 0, recovered: 0, stale: 0, lost: 0 };
    for (const need of needs)
      counts[needOutcome(plan.answerKey.get(need.id)!, sheet.answers.get(need.id), need.id, log)] += 1;
    return counts;
  };
  const { peeks, searches, fileRereads, stageRereads, commandReruns } = log.recoveryReads;
  return {
    probes: {
      ...tally(plan.needs.filter((need) => need.kind !== 'check')),
      recoveryReads: peeks + searches + fileRereads + stageRereads + commandReruns,
    },
    workingSet: tally(plan.needs.filter((need) => need.kind === 'check')),
  };
}
