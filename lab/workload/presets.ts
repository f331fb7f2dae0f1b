import { FoldError } from '../../core/fold-error.ts';
import type { StagedPreset } from './stage-plan.ts';

/**
 * `full`: the 64-stage assignment against the 272k descriptor and the 372k provider cap; each
 *   stage's work needs 2 details of files read in the 3 stages before it.
 * `smoke`: the same shape, small enough for CI (12 stages, a 30k descriptor, a 40k cap; 1
 *   detail from the 2 stages before).
 */
export const STAGED_PRESETS: Readonly<Record<string, StagedPreset>> = {
  full: {
    name: 'full',
    stages: 64,
    filesPerStage: 7,
    inlineChars: 16_000,
    probeEvery: 4,
    firstProbeStage: 6,
    finalQuestions: 12,
    workingSetStages: 3,
    checksPerStage: 2,
    descriptorTokens: 272_000,
    providerCapTokens: 372_000,
  },
  smoke: {
    name: 'smoke',
    stages: 12,
    filesPerStage: 4,
    inlineChars: 6_000,
    probeEvery: 3,
    firstProbeStage: 4,
    finalQuestions: 4,
    workingSetStages: 2,
    checksPerStage: 1,
    descriptorTokens: 30_000,
    providerCapTokens: 40_000,
  },
};

export function stagedPreset(name: string): StagedPreset {
  const preset = STAGED_PRESETS[name];
  if (preset === undefined)
    throw new FoldError(
      'SETTINGS.INVALID',
      `unknown preset "${name}" (known: ${Object.keys(STAGED_PRESETS).join(', ')})`,
    );
  return preset;
}
