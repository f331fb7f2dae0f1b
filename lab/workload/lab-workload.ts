import { FoldError } from '../../core/fold-error.ts';
import type { LabRun } from '../report/lab-records.ts';
import { STAGED_PRESETS } from './presets.ts';
import { runStagedWorkload, type StagedRunOptions } from './run-staged-workload.ts';
import { runShapedWorkload, type ShapedRunOptions } from './shaped/run-shaped-workload.ts';
import type { ShapedPreset } from './shaped/shaped-plan.ts';
import type { StagedPreset } from './stage-plan.ts';

/**
 * `shaped`: the default; 64 stages of 11 tool calls whose kinds follow the tool mix measured
 *   on real sessions (lab/workload/tool-mix.json), 2 working-set checks a stage about the last
 *   3 stages, a probe every 4 stages from stage 6, 12 withheld questions; 272k descriptor, 372k cap.
 * `shaped-smoke`: the same shape for CI (12 stages of 5 calls, 30k descriptor, 40k cap).
 */
export const SHAPED_PRESETS: Readonly<Record<string, ShapedPreset>> = {
  shaped: {
    name: 'shaped',
    stages: 64,
    callsPerStage: 11,
    probeEvery: 4,
    firstProbeStage: 6,
    finalQuestions: 12,
    checksPerStage: 2,
    workingSetStages: 3,
    descriptorTokens: 272_000,
    providerCapTokens: 372_000,
  },
  'shaped-smoke': {
    name: 'shaped-smoke',
    stages: 12,
    callsPerStage: 5,
    probeEvery: 3,
    firstProbeStage: 4,
    finalQuestions: 4,
    checksPerStage: 1,
    workingSetStages: 2,
    descriptorTokens: 30_000,
    providerCapTokens: 40_000,
  },
};

/** A lab preset: the shaped assignment (real sessions' tool mix) or the staged one (reads of files that never change). */
export type LabWorkload =
  | { readonly kind: 'shaped'; readonly preset: ShapedPreset }
  | { readonly kind: 'staged'; readonly preset: StagedPreset };

/** The preset a lab run names: `shaped` and `shaped-smoke`, or the staged `full` and `smoke`. */
export function labWorkload(name: string): LabWorkload {
  const shaped = SHAPED_PRESETS[name];
  if (shaped !== undefined) return { kind: 'shaped', preset: shaped };
  const staged = STAGED_PRESETS[name];
  if (staged !== undefined) return { kind: 'staged', preset: staged };
  throw new FoldError(
    'SETTINGS.INVALID',
    `unknown preset "${name}" (known: ${[...Object.keys(SHAPED_PRESETS), ...Object.keys(STAGED_PRESETS)].join(', ')})`,
  );
}

/** Run a workload's every arm; the options are the staged runner's, the preset the workload's. */
export function runLabWorkload(
  workload: LabWorkload,
  options: Omit<StagedRunOptions, 'preset'> & Omit<ShapedRunOptions, 'preset'>,
): Promise<LabRun> {
  return workload.kind === 'shaped'
    ? runShapedWorkload({ ...options, preset: workload.preset })
    : runStagedWorkload({ ...options, preset: workload.preset });
}
