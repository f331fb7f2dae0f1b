import type { ArmSummary } from './arm-summary.ts';
import type { CostBound } from './lab-records.ts';

/** The bound beside the arms: its dollars and each arm's cost ÷ the bound (the stable summary's `bound`). */
export interface BoundSummary extends CostBound {
  /** Each finished arm's cost ÷ the bound, by arm name (absent where the bound is $0). */
  readonly armOverBound: Readonly<Record<string, number>>;
}

/** The bound with every finished arm's cost set against it. */
export function summarizeBound(bound: CostBound, arms: readonly ArmSummary[]): BoundSummary {
  const armOverBound: Record<string, number> = {};
  if (bound.costUsd > 0)
    for (const arm of arms) if (arm.failure === undefined) armOverBound[arm.arm] = round(arm.costUsd / bound.costUsd);
  return { ...bound, armOverBound };
}

/**
 * The table's `bound` row: the cheapest any lossless schedule could bill for the bound arm's
 * requests, then each arm's cost ÷ it, and where the bound's schedule commits.
 */
export function boundLines(bound: CostBound, arms: readonly ArmSummary[]): string[] {
  const { armOverBound } = summarizeBound(bound, arms);
  const ratios = Object.entries(armOverBound).map(([arm, ratio]) => `${arm} ÷ bound ${ratio.toFixed(2)}×`);
  const commits = bound.commits.map((request) => request + 1).join(', ');
  const lines = [
    `bound  $${bound.costUsd.toFixed(2)}${ratios.length === 0 ? '' : `  ·  ${ratios.join(' · ')}`}`,
    `  the cheapest any lossless schedule could bill for ${bound.arm}'s ${bound.requests} requests (perfect foresight over commit points and depths; floor ${bound.floorTokens.toLocaleString('en-US')} of Pi's tokens, the run's fence, price list and cache, fixed block ${bound.fixedTokens.toLocaleString('en-US')} tokens, folds shown as nothing): ${bound.commits.length} commit(s)${commits.length === 0 ? '' : ` at requests ${commits} (counted from 1)`}${bound.coldCommits === 0 ? '' : `, ${bound.coldCommits} of them where the cache was cold anyway`}`,
  ];
  if (bound.armWindowsUsd !== undefined)
    lines.push(
      `  ${bound.arm}'s own windows with pi-fold's messages (briefs, stubs, notices, receipts) at no tokens: $${bound.armWindowsUsd.toFixed(2)}; from the bound to that is ${bound.arm}'s timing and depth, from that to ${bound.arm}'s cost its messages`,
    );
  if (bound.unalignedRequests > 0)
    lines.push(
      `  ${bound.unalignedRequests} request(s) could not be lined up with ${bound.arm}'s projection: entries new there are missing, so the bound is lower than it should be`,
    );
  return lines;
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
