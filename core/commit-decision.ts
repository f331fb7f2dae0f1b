import type { RewriteCause } from '../ports/projection-sink.port.ts';
import type { SchedulingMode, Thresholds } from './settings.ts';

/** Causes a host or a person may force a commit under. */
export type ForcedCommitCause = Extract<RewriteCause, 'user-fold' | 'overflow-recovery'>;

/** A commit a person (`/fold`) or a host (overflow recovery) asked for at the next projection. */
export interface ForcedCommit {
  readonly cause: ForcedCommitCause;
  /** Land only these marks; absent means every mark. */
  readonly markIds?: ReadonlySet<string>;
}

/** What the commit decision reads: the policy, the request's numbers, nothing else. */
export interface CommitDecisionInputs {
  readonly thresholds: Thresholds;
  readonly scheduling: SchedulingMode;
  readonly forced: ForcedCommit | undefined;
  /** Estimated prompt tokens of the window before any commit. */
  readonly estimate: number;
  readonly budget: number;
  readonly charsPerToken: number;
}

/** A decision to commit: how much to free, and whether the fence must cut first. */
export interface CommitDecision {
  /** Chars the commit must free; `Infinity` lands every (selected) mark. */
  readonly charsToFree: number;
  /** Over the budget: every lossless fold counts, so the frontier cuts everything it can first (I6). */
  readonly overBudget: boolean;
  /** Only these marks may land (a person's `/fold <ids>`). */
  readonly onlyMarkIds?: ReadonlySet<string>;
}

/**
 * B3: whether this request commits, and how much it must free. Below maxTarget nothing
 * moves; at or above it, marks land down to minTarget; a person's `/fold` and the
 * `immediate` ablation land everything. Over the budget, the fence cuts first (I6).
 * Pure: the caller cuts, plans and lands.
 */
export function decideCommit(inputs: CommitDecisionInputs): CommitDecision | undefined {
  const { thresholds, scheduling, forced, estimate, budget } = inputs;
  const overBudget = estimate > budget;
  let charsToFree: number;
  if (forced !== undefined || scheduling === 'immediate') charsToFree = Number.POSITIVE_INFINITY;
  else if (estimate >= thresholds.maxTarget * budget || overBudget) charsToFree = (estimate - thresholds.minTarget * budget) * inputs.charsPerToken;
  else return undefined;
  return { charsToFree, overBudget, ...(forced?.markIds === undefined ? {} : { onlyMarkIds: forced.markIds }) };
}
