import type { FoldWarning } from '../ports/shared-types.ts';
import { applyCommitPlan, type LandingTarget } from './commit-applier.ts';
import { dropInvalidMarks } from './commit-landing.ts';
import type { CommitPlan } from './commit-planner.ts';
import type { SessionState } from './session-state.ts';
import { skippedCommitWarning } from './store-outage.ts';

/** What landing a request's commit writes beyond the store and the forest. */
export type LandTarget = LandingTarget &
  Pick<SessionState, 'storeOutage' | 'pendingCauses' | 'forcedCommit' | 'frontier'>;

/**
 * Apply a planned commit. A store that refuses a write skips the commit with one warning:
 * the request still goes out, unfolded and intact. Returns the folds landed.
 */
export async function landCommit(target: LandTarget, plan: CommitPlan, warnings: FoldWarning[]): Promise<number> {
  let landed = 0;
  if (plan.folds.length > 0) {
    const applied = await target.storeOutage.attempt(
      () => applyCommitPlan(target, plan),
      warnings,
      skippedCommitWarning,
      false,
    );
    if (applied) {
      landed = plan.folds.length;
      target.pendingCauses.add(target.forcedCommit?.cause ?? 'commit');
    }
  }
  dropInvalidMarks(target, plan);
  return landed;
}
