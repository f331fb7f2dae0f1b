import type { CommitDecision } from '../policy/decision.ts';
import { type CommitPlan, type PlanInputs, planCommit } from './planner.ts';

/** What planning over the standing marks reads (the plan itself is pure; nothing is applied). */
export type MarkPlanInputs = Pick<PlanInputs, 'index' | 'lattice' | 'memory' | 'toolName'>;

/** What of a decision shapes its plan: how much to free, from which marks, how many folds at most. */
export type PlanBounds = Pick<CommitDecision, 'charsToFree' | 'onlyMarkIds' | 'maxFolds'>;

/** Plan folding standing marks (all, or only `onlyMarkIds`) until `charsToFree`; nothing is applied. */
export function planStandingMarks(inputs: MarkPlanInputs, bounds: PlanBounds): CommitPlan {
  return planCommit({
    index: inputs.index,
    lattice: inputs.lattice,
    memory: inputs.memory,
    toolName: inputs.toolName,
    epoch: inputs.memory.epoch + 1,
    charsToFree: bounds.charsToFree,
    ...(bounds.onlyMarkIds === undefined ? {} : { onlyMarkIds: bounds.onlyMarkIds }),
    ...(bounds.maxFolds === undefined ? {} : { maxFolds: bounds.maxFolds }),
  });
}
