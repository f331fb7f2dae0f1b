import { cutForFence, type FenceTarget } from '../fence.ts';
import { decideCommit, FENCE_AIM_SHARE, type ForcedCommit, fenceDecision } from '../policy/decision.ts';
import {
  type CommitScheduler,
  markPlanInputs,
  type ScheduleInputs,
  type SchedulerSession,
} from '../policy/scheduler.ts';
import { planStandingMarks } from './plan-marks.ts';
import type { CommitPlan } from './planner.ts';

/** What planning a request's commit reads and writes: the scheduler's view, the fence's marks, a forced commit. */
export type RequestCommitTarget = SchedulerSession &
  FenceTarget & { readonly forcedCommit: ForcedCommit | undefined; readonly scheduler: CommitScheduler };

/**
 * Plan this request's commit, if any (nothing applied): a person's `/fold`, else the
 * scheduler's policy; over the budget the fence cuts first (docs/behaviour.md I6) and, when the policy's commit
 * would leave the request over, a fence commit reaches inside the floor.
 */
export function planRequestCommit(runtime: RequestCommitTarget, inputs: ScheduleInputs): CommitPlan | undefined {
  const forced = runtime.forcedCommit;
  const charsPerToken = runtime.estimator.charsPerToken();
  if (inputs.estimate > inputs.budget) cutForFence(runtime);
  if (runtime.memory.marks.length === 0) return undefined;
  const scheduled = forced === undefined ? runtime.scheduler.schedule(inputs) : undefined;
  const decision = decideCommit({ forced, scheduled, estimate: inputs.estimate, budget: inputs.budget, charsPerToken });
  if (decision === undefined) return undefined;
  const plan = planStandingMarks(markPlanInputs(runtime), decision);
  runtime.scheduler.landed(decision, plan);
  // The receipt and notice a commit appends must fit too: the policy's commit suffices only with the fence's room left.
  const after = inputs.estimate - runtime.estimator.tokensForChars(plan.savedChars);
  if (
    !decision.overBudget ||
    decision.reason === 'fence' ||
    forced !== undefined ||
    after <= FENCE_AIM_SHARE * inputs.budget
  )
    return plan;
  const fence = fenceDecision(inputs.estimate, inputs.budget, charsPerToken);
  const fencePlan = planStandingMarks(markPlanInputs(runtime), fence);
  runtime.scheduler.landed(fence, fencePlan);
  return fencePlan;
}
