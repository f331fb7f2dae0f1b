import type { FoldWarning } from '../../../ports/shared-types.ts';
import type { EngineMemory } from '../../state/engine-memory.ts';
import type { Frontier } from '../../state/frontier.ts';
import type { SessionModel } from '../../state/session-model.ts';
import { type StoreOutage, skippedCommitWarning } from '../../store/store-outage.ts';
import type { TranscriptIndex } from '../../transcript/transcript-index.ts';
import type { CommitPlan } from '../plan/planner.ts';
import { applyCommitPlan, type LandingTarget } from './store-writes.ts';

/** What landing a request's commit writes beyond the store and the forest. */
export type LandTarget = LandingTarget & {
  readonly model: Pick<SessionModel, 'queueRewrite' | 'forcedCommit'>;
  readonly services: { readonly storeOutage: StoreOutage; readonly frontier: Frontier };
};

/** What applying a request's commit came to: the folds landed, and whether the store refused the commit. */
export interface LandOutcome {
  readonly foldsLanded: number;
  /** The store refused a write: nothing was folded, and the scheduler learns nothing of this commit. */
  readonly refused: boolean;
}

/**
 * Apply a planned commit. A store that refuses a write skips the commit with one warning:
 * the request still goes out, unfolded and intact.
 */
export async function landCommit(target: LandTarget, plan: CommitPlan, warnings: FoldWarning[]): Promise<LandOutcome> {
  let outcome: LandOutcome = { foldsLanded: 0, refused: false };
  if (plan.folds.length > 0) {
    const { model, services } = target;
    const applied = await services.storeOutage.attempt(
      () => applyCommitPlan(target, plan),
      warnings,
      skippedCommitWarning,
      false,
    );
    outcome = { foldsLanded: applied ? plan.folds.length : 0, refused: !applied };
    if (applied) model.queueRewrite(model.forcedCommit?.cause ?? 'commit');
  }
  const { index, memory } = target.model;
  dropInvalidMarks({ index, memory, frontier: target.services.frontier }, plan);
  return outcome;
}

/** What withdrawing broken marks writes: the marks, and the frontier that looks at their units again. */
export interface MarkWithdrawalTarget {
  readonly index: TranscriptIndex;
  readonly memory: EngineMemory;
  readonly frontier: Frontier;
}

/**
 * Marks whose span broke a rule since they were cut (a pin landed, the branch moved) are
 * withdrawn rather than retried forever; the frontier looks at their units again.
 */
export function dropInvalidMarks(target: MarkWithdrawalTarget, plan: CommitPlan): void {
  const permanent = plan.dropped.filter((drop) => drop.permanent);
  if (permanent.length === 0) return;
  const ids = new Set(permanent.map(({ mark }) => mark.id));
  target.memory.dropMarks(ids);
  for (const { mark } of permanent) {
    const position = target.index.positionOf(mark.firstEntryId);
    if (position !== undefined) target.frontier.rewindTo(target.index, position);
  }
}
