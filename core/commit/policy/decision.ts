import type { ForcedCommit } from '../../state/forced-commit.ts';

/** Why a commit fires (docs/behaviour.md B3.2, B3.3, B3.6, I6), for status, receipts and tests. */
export type CommitReason =
  | 'forced'
  | 'cost'
  | 'ceiling'
  | 'band'
  | 'cold-idle'
  | 'cold-model-switch'
  | 'immediate-drain'
  | 'eager'
  | 'fence';

/** A decision to commit: how much to free, from which marks, and whether the fence must cut first. */
export interface CommitDecision {
  readonly reason: CommitReason;
  /** Chars the commit must free; `Infinity` lands every (selected) mark. */
  readonly charsToFree: number;
  /**
   * Over the budget: every lossless fold counts, so the frontier cuts everything it can first
   * (docs/behaviour.md I6).
   */
  readonly overBudget: boolean;
  /** Only these marks may land (a person's `/fold <ids>`, or those outside the raw floor). */
  readonly onlyMarkIds?: ReadonlySet<string>;
  /** Land at most this many folds (the `immediate` ablation: one per request). */
  readonly maxFolds?: number;
}

/** What the automatic policy asked for this request (`policy/scheduler.ts`), before the fence. */
export type ScheduledCommit = Omit<CommitDecision, 'overBudget'>;

/** What the commit decision reads: the request's numbers and what the policy scheduled, nothing else. */
export interface CommitDecisionInputs {
  readonly forced: ForcedCommit | undefined;
  /** The automatic policy's commit for this request, if it scheduled one. */
  readonly scheduled: ScheduledCommit | undefined;
  /** Estimated prompt tokens of the window before any commit. */
  readonly estimate: number;
  readonly budget: number;
  readonly charsPerToken: number;
}

/** Share of the budget a fence commit folds down to when the policy scheduled nothing. */
export const FENCE_AIM_SHARE = 0.9;

/**
 * docs/behaviour.md B3: whether this request commits, and what lands. A person's `/fold` lands everything it
 * names; otherwise the policy's scheduled commit (cost by default, `docs/cost-scheduling.md`).
 * Over the budget the fence cuts first (docs/behaviour.md I6), and frees at least down to 90 % of the budget
 * even where the policy scheduled nothing. Pure: the caller cuts, plans and lands.
 */
export function decideCommit(inputs: CommitDecisionInputs): CommitDecision | undefined {
  const { forced, scheduled, estimate, budget } = inputs;
  const overBudget = estimate > budget;
  if (forced !== undefined) {
    return {
      reason: 'forced',
      charsToFree: Number.POSITIVE_INFINITY,
      overBudget,
      ...(forced.markIds === undefined ? {} : { onlyMarkIds: forced.markIds }),
    };
  }
  if (scheduled !== undefined) return { ...scheduled, overBudget };
  if (!overBudget) return undefined;
  return fenceDecision(estimate, budget, inputs.charsPerToken);
}

/**
 * The commit of docs/behaviour.md I6: stalest first over every mark, floor or not, until the
 * request fits with room.
 */
export function fenceDecision(estimate: number, budget: number, charsPerToken: number): CommitDecision {
  return {
    reason: 'fence',
    charsToFree: Math.max(0, estimate - FENCE_AIM_SHARE * budget) * charsPerToken,
    overBudget: true,
  };
}
