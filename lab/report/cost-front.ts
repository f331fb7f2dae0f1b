import type { ArmSummary } from './arm-summary.ts';
import type { ArmName } from './lab-records.ts';

/** The arm whose place on the front every report states: the product's default. */
export const DEFAULT_ARM: ArmName = 'fold';

/** One arm on the cost/recovery plane. */
export interface FrontPoint {
  readonly arm: ArmName;
  readonly costUsd: number;
  /** Recovery reads (peeks, searches, file and stage re-reads). */
  readonly recoveryReads: number;
  /** Probes and working-set checks answered wrong or "unknown". */
  readonly lost: number;
  /** False when the arm stopped early: it is drawn but never on the front. */
  readonly finished: boolean;
  /** False when the arm sent a prompt above the provider's cap (the oracle): a reference, not a policy a provider would serve; drawn, never on the front. */
  readonly withinCap: boolean;
  /** No finished arm is at most as dear, loses at most as much and reads back at most as often, and better in one. */
  readonly onFront: boolean;
  /** An arm that dominates this one, when it is off the front. */
  readonly dominatedBy?: ArmName;
}

/** The front of a run and what it says about the default. */
export interface CostRecoveryFront {
  readonly points: readonly FrontPoint[];
  /** Arms cheaper than the default that lose nothing with no more recovery reads (the default's test; empty: the default holds). */
  readonly cheaperThanDefault: readonly ArmName[];
  /** Undefined when the run has no finished default arm. */
  readonly defaultOnFront?: boolean;
  /** One sentence for every report. */
  readonly statement: string;
}

/**
 * Costs within this share of each other are a tie: arms differ in session ids and fold ids,
 * which reach the wire and move a bill by a few hundredths of a percent with no policy change.
 */
export const COST_TIE_SHARE = 0.001;

/** `a` is cheaper than `b` by more than a tie. */
function cheaperThan(a: number, b: number): boolean {
  return a < b * (1 - COST_TIE_SHARE);
}

function noDearer(a: number, b: number): boolean {
  return a <= b * (1 + COST_TIE_SHARE);
}

/** Lost questions of an arm: probes and working-set checks, lost or answered stale. */
export function lostQuestions(summary: ArmSummary): number {
  return (
    (summary.probes?.lost ?? 0) +
    (summary.probes?.stale ?? 0) +
    (summary.workingSet?.lost ?? 0) +
    (summary.workingSet?.stale ?? 0)
  );
}

function dominates(a: Omit<FrontPoint, 'onFront'>, b: Omit<FrontPoint, 'onFront'>): boolean {
  const noWorse = noDearer(a.costUsd, b.costUsd) && a.recoveryReads <= b.recoveryReads && a.lost <= b.lost;
  const better = cheaperThan(a.costUsd, b.costUsd) || a.recoveryReads < b.recoveryReads || a.lost < b.lost;
  return noWorse && better;
}

/**
 * The cost/recovery front among the arms that finished within the provider's cap (the
 * oracle, which has none, is the recall reference, not a policy): an arm is on it when no other such arm is at most as dear,
 * loses at most as many questions and needs at most as many recovery reads, and is better
 * in one of them (costs within 0.1% tie). The default passes the test when no arm is both cheaper than it
 * and loses nothing with no more recovery reads.
 */
export function costRecoveryFront(
  summaries: readonly ArmSummary[],
  capTokens: number,
  defaultArm: ArmName = DEFAULT_ARM,
): CostRecoveryFront {
  const base = summaries.map((summary) => ({
    arm: summary.arm,
    costUsd: summary.costUsd,
    recoveryReads: summary.recovery.reads,
    lost: lostQuestions(summary),
    finished: summary.failure === undefined,
    withinCap: summary.peakPromptTokens <= capTokens,
  }));
  const eligible = base.filter((point) => point.finished && point.withinCap);
  const points: FrontPoint[] = base.map((point) => {
    const dominator = eligible.find((other) => other.arm !== point.arm && dominates(other, point));
    const onFront = point.finished && point.withinCap && dominator === undefined;
    return { ...point, onFront, ...(dominator === undefined ? {} : { dominatedBy: dominator.arm }) };
  });
  const chosen = points.find((point) => point.arm === defaultArm && point.finished && point.withinCap);
  if (chosen === undefined)
    return {
      points,
      cheaperThanDefault: [],
      statement: `no finished ${defaultArm} arm in this run: the default's place on the cost/recovery front is not measured`,
    };
  const cheaper = points.filter(
    (point) =>
      point.finished &&
      point.withinCap &&
      point.arm !== defaultArm &&
      cheaperThan(point.costUsd, chosen.costUsd) &&
      point.lost === 0 &&
      point.recoveryReads <= chosen.recoveryReads,
  );
  const statement =
    cheaper.length === 0
      ? `${defaultArm} (the default) holds: no arm is both cheaper than it ($${chosen.costUsd.toFixed(2)}) and loses nothing with no more recovery reads (${chosen.recoveryReads}); it ${chosen.onFront ? 'is on' : `is off`} the cost/recovery front${chosen.onFront ? '' : ` (dominated by ${chosen.dominatedBy})`}, ${chosen.lost} questions lost`
      : `${defaultArm} (the default) does NOT hold: ${cheaper.map((point) => `${point.arm} costs $${point.costUsd.toFixed(2)} < $${chosen.costUsd.toFixed(2)}, loses nothing, with ${point.recoveryReads} ≤ ${chosen.recoveryReads} recovery reads`).join('; ')}`;
  return { points, cheaperThanDefault: cheaper.map((point) => point.arm), defaultOnFront: chosen.onFront, statement };
}
