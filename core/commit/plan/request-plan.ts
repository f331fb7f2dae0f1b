import type { ForcedCommit } from '../../state/forced-commit.ts';
import {
  type CommitDecision,
  type CommitReason,
  decideCommit,
  FENCE_AIM_SHARE,
  fenceDecision,
} from '../policy/decision.ts';
import {
  markPlanInputs,
  type ScheduleAnswer,
  type ScheduleInputs,
  type SchedulerSession,
  type SchedulerUpdate,
} from '../policy/scheduler.ts';
import { planStandingMarks } from './plan-marks.ts';
import type { CommitPlan } from './planner.ts';

/** What planning a request's commit reads: the scheduler's view, a forced commit, and the scheduler itself. */
export type RequestCommitSource = SchedulerSession & {
  readonly forcedCommit: ForcedCommit | undefined;
  readonly scheduler: { readonly draining: boolean; schedule(inputs: ScheduleInputs): ScheduleAnswer };
};

/**
 * A request's planned commit, as data: the plan to apply (absent when nothing commits), and
 * what the scheduler learns once the commit is settled (absent when it learns nothing).
 */
export interface RequestCommit {
  readonly plan: CommitPlan | undefined;
  readonly schedulerUpdate: SchedulerUpdate | undefined;
}

/**
 * Plan this request's commit, if any: a person's `/fold`, else the scheduler's policy; when
 * the policy's commit would leave a request over the budget, a fence commit reaches inside
 * the floor (docs/behaviour.md I6). Writes nothing: over the budget the caller cuts the fence
 * first (`../fence.ts`), then applies the plan and settles the scheduler.
 */
export function planRequestCommit(session: RequestCommitSource, inputs: ScheduleInputs): RequestCommit {
  const forced = session.forcedCommit;
  const charsPerToken = session.estimator.charsPerToken();
  if (session.memory.marks.length === 0) return { plan: undefined, schedulerUpdate: undefined };
  const answer = forced === undefined ? session.scheduler.schedule(inputs) : undefined;
  let draining = answer?.draining ?? session.scheduler.draining;
  const decision = decideCommit({
    forced,
    scheduled: answer?.commit,
    estimate: inputs.estimate,
    budget: inputs.budget,
    charsPerToken,
  });
  if (decision === undefined) return { plan: undefined, schedulerUpdate: { draining } };
  const plan = planStandingMarks(markPlanInputs(session), decision);
  // The `immediate` drain ends once a request has nothing left to land.
  if (decision.reason === 'immediate-drain' && plan.folds.length === 0) draining = false;
  // The receipt and notice a commit appends must fit too: the policy's commit suffices only with the fence's room left.
  const after = inputs.estimate - session.estimator.tokensForChars(plan.savedChars);
  if (
    !decision.overBudget ||
    decision.reason === 'fence' ||
    forced !== undefined ||
    after <= FENCE_AIM_SHARE * inputs.budget
  )
    return { plan, schedulerUpdate: schedulerUpdate(draining, landedReason(decision, plan)) };
  const fence = fenceDecision(inputs.estimate, inputs.budget, charsPerToken);
  const fencePlan = planStandingMarks(markPlanInputs(session), fence);
  const reason = landedReason(fence, fencePlan) ?? landedReason(decision, plan);
  return { plan: fencePlan, schedulerUpdate: schedulerUpdate(draining, reason) };
}

/** The reason status shows for a plan, when it lands folds. */
function landedReason(decision: CommitDecision, plan: CommitPlan): CommitReason | undefined {
  return plan.folds.length > 0 ? decision.reason : undefined;
}

function schedulerUpdate(draining: boolean, reason: CommitReason | undefined): SchedulerUpdate {
  return reason === undefined ? { draining } : { draining, landedReason: reason };
}
