import { type CommitPlan, type PlanInputs, planCommit } from './commit-planner.ts';
import type { EngineMemory } from './engine-state.ts';
import type { Frontier, FrontierInputs } from './frontier.ts';
import type { TranscriptIndex } from './transcript-index.ts';

/** What planning a landing reads (the plan itself is pure; nothing is applied). */
export type LandingPlanInputs = Pick<PlanInputs, 'index' | 'lattice' | 'memory' | 'toolName'>;

/** Plan landing standing marks (all, or only `onlyMarkIds`) until `charsToFree`; nothing is applied. */
export function planLanding(
  inputs: LandingPlanInputs,
  charsToFree: number,
  onlyMarkIds?: ReadonlySet<string>,
  maxFolds?: number,
): CommitPlan {
  return planCommit({
    index: inputs.index,
    lattice: inputs.lattice,
    memory: inputs.memory,
    toolName: inputs.toolName,
    epoch: inputs.memory.epoch + 1,
    charsToFree,
    ...(onlyMarkIds === undefined ? {} : { onlyMarkIds }),
    ...(maxFolds === undefined ? {} : { maxFolds }),
  });
}

/** What the fence writes: the frontier's cursors and the marks it cuts. */
export interface FenceTarget {
  readonly frontier: Frontier;
  readonly memory: EngineMemory;
  frontierInputs(): FrontierInputs;
}

/**
 * docs/behaviour.md I6: over the budget, every lossless fold counts, including spans the agent asked to keep
 * raw (holds). Pins, protected and open units still never fold. The holds stay recorded:
 * they only ever stop automatic cutting.
 */
export function cutForFence(target: FenceTarget): void {
  const { memory, frontier } = target;
  const holds = memory.holds;
  memory.holds = [];
  try {
    frontier.reset();
    for (let pass = 0; pass < 1_000; pass += 1) {
      if (frontier.pass(target.frontierInputs()).length === 0) break;
    }
  } finally {
    memory.holds = holds;
  }
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
  target.memory.marks = target.memory.marks.filter((mark) => !ids.has(mark.id));
  for (const { mark } of permanent) {
    const position = target.index.positionOf(mark.firstEntryId);
    if (position !== undefined) target.frontier.rewindTo(target.index, position);
  }
}
