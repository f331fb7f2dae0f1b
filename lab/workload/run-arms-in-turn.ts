import type { Thresholds } from '../../core/settings/settings.ts';
import { type RunArmInput, runArm } from '../arms/run-arm.ts';
import type { TrajectoryRecorder } from '../bound/bound-trajectory.ts';
import { boundRecorderFor, costBound } from '../bound/run-bound.ts';
import { DEFAULT_CACHE_RULES } from '../provider/prefix-cache-simulator.ts';
import type { ModelPolicy } from '../provider/simulated-provider.ts';
import { LAB_TOKENIZER } from '../provider/wire-tokens.ts';
import type { ArmName, ArmResult, LabRun, LabRunSettings, RequestRow } from '../report/lab-records.ts';

/** How a run goes through its arms, whatever the assignment: which arms, their thresholds, progress. */
export interface ArmsInTurnOptions {
  readonly arms: readonly ArmName[];
  /** pi-fold thresholds for the fold arms but `fold-band` (completed from the defaults; checked against the runtime). */
  readonly foldThresholds?: Partial<Thresholds>;
  /** Called before each arm and with each request row (progress). */
  readonly onArmStart?: (arm: ArmName, expectedRequests: number) => void;
  readonly onRow?: (row: RequestRow) => void;
  readonly onArmEnd?: (result: ArmResult, wallMs: number) => void;
  /** What runs each arm: a real Pi session (`runArm`), or another host's loop (lab/ai-sdk). @default runArm */
  readonly runArm?: (input: RunArmInput) => Promise<ArmResult>;
}

/** The run's settings, as every report prints them: the workload's name, the preset's descriptor and cap. */
export function assignmentSettings(
  workload: string,
  preset: { readonly descriptorTokens: number; readonly providerCapTokens: number },
  seed: number,
  priceList = 'gpt-5.6-ledger',
): LabRunSettings {
  return {
    workload,
    seed,
    priceList,
    descriptorTokens: preset.descriptorTokens,
    providerCapTokens: preset.providerCapTokens,
    tokenizer: LAB_TOKENIZER,
    cacheRules: DEFAULT_CACHE_RULES,
  };
}

/** One arm's fresh start on an assignment: its tools and agent, and how its result is scored. */
export interface ArmAssignment {
  readonly tools: RunArmInput['tools'];
  readonly policy: ModelPolicy;
  /** About how many requests the arm will make (progress only). */
  readonly expectedRequests: number;
  /** The arm's result with the assignment's scores added. */
  readonly score: (result: ArmResult) => ArmResult;
}

/** What every scripted assignment shares: one prompt, one working copy, and the settings its run prints. */
export interface AssignmentRun {
  readonly settings: LabRunSettings;
  readonly prompt: string;
  readonly cwd: string;
  /** Called once per arm, before it runs: a fresh answer sheet and agent, so no arm sees another's state. */
  readonly startArm: () => ArmAssignment;
}

/**
 * Run one assignment through every arm, one after the other, same plan and seed; the cost
 * bound is recorded from the first arm that offers a recorder.
 */
export async function runArmsInTurn(options: ArmsInTurnOptions, assignment: AssignmentRun): Promise<LabRun> {
  const { settings } = assignment;
  const arms: ArmResult[] = [];
  let recorder: TrajectoryRecorder | undefined;
  for (const arm of options.arms) {
    const armRecorder = boundRecorderFor(arm);
    recorder ??= armRecorder;
    const started = assignment.startArm();
    options.onArmStart?.(arm, started.expectedRequests);
    const startedAt = performance.now();
    const result = await (options.runArm ?? runArm)({
      arm,
      settings,
      tools: started.tools,
      prompts: [assignment.prompt],
      policy: started.policy,
      cwd: assignment.cwd,
      ...(options.onRow === undefined ? {} : { onRow: options.onRow }),
      ...(armRecorder === undefined ? {} : { onPrompt: (billed) => armRecorder.record(billed) }),
      ...(options.foldThresholds === undefined ? {} : { foldThresholds: options.foldThresholds }),
    });
    const scored = started.score(result);
    options.onArmEnd?.(scored, performance.now() - startedAt);
    arms.push(scored);
  }
  const bound = recorder === undefined ? undefined : costBound(recorder, settings);
  return { settings, arms, ...(bound === undefined ? {} : { bound }) };
}
