import { planCommit, type CommitPlan } from './commit-planner.ts';
import type { FoldRuntime } from './fold-runtime.ts';

/**
 * B3: whether this request commits, and how much it must free. Below maxTarget nothing
 * moves; at or above it, marks land down to minTarget; a person's `/fold` and the
 * `immediate` ablation land everything. Over the budget, the fence cuts first (I6).
 */
export function decideCommit(runtime: FoldRuntime, estimate: number, budget: number): CommitPlan | undefined {
  const { thresholds, scheduling } = runtime.settings;
  const forced = runtime.forcedCommit;
  let charsToFree: number;
  if (forced !== undefined || scheduling === 'immediate') charsToFree = Number.POSITIVE_INFINITY;
  else if (estimate >= thresholds.maxTarget * budget || estimate > budget) charsToFree = (estimate - thresholds.minTarget * budget) * runtime.estimator.charsPerToken();
  else return undefined;
  if (estimate > budget) cutForFence(runtime);
  if (runtime.memory.marks.length === 0) return undefined;
  return planForRuntime(runtime, charsToFree, forced?.markIds);
}

/** Plan landing standing marks (all, or only `onlyMarkIds`) until `charsToFree`; nothing is applied. */
export function planForRuntime(runtime: FoldRuntime, charsToFree: number, onlyMarkIds?: ReadonlySet<string>): CommitPlan {
  return planCommit({
    index: runtime.index,
    lattice: runtime.lattice,
    memory: runtime.memory,
    toolName: runtime.settings.toolName,
    epoch: runtime.memory.epoch + 1,
    charsToFree,
    ...(onlyMarkIds === undefined ? {} : { onlyMarkIds }),
  });
}

/**
 * I6: over the budget, every lossless fold counts, including spans the agent asked to keep
 * raw (holds). Pins, protected and open units still never fold. The holds stay recorded:
 * they only ever stop automatic cutting.
 */
function cutForFence(runtime: FoldRuntime): void {
  const { memory, frontier } = runtime;
  const holds = memory.holds;
  memory.holds = [];
  try {
    frontier.reset();
    for (let pass = 0; pass < 1_000; pass += 1) {
      if (frontier.pass(runtime.frontierInputs()).length === 0) break;
    }
  } finally {
    memory.holds = holds;
  }
}

/**
 * Marks whose span broke a rule since they were cut (a pin landed, the branch moved) are
 * withdrawn rather than retried forever; the frontier looks at their units again.
 */
export function dropInvalidMarks(runtime: FoldRuntime, plan: CommitPlan): void {
  const permanent = plan.dropped.filter((drop) => drop.permanent);
  if (permanent.length === 0) return;
  const ids = new Set(permanent.map(({ mark }) => mark.id));
  runtime.memory.marks = runtime.memory.marks.filter((mark) => !ids.has(mark.id));
  for (const { mark } of permanent) {
    const position = runtime.index.positionOf(mark.firstEntryId);
    if (position !== undefined) runtime.frontier.rewindTo(runtime.index, position);
  }
}
