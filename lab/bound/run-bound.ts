import { floorTokensFor } from '../../core/commit/policy/raw-floor.ts';
import { FoldError } from '../../core/fold-error.ts';
import { DEFAULT_RAW_FLOOR_TOKENS } from '../../core/settings/settings.ts';
import { priceListOf } from '../report/cost-split.ts';
import type { ArmName, CostBound, LabRunSettings } from '../report/lab-records.ts';
import { type BoundTrajectory, TrajectoryRecorder } from './bound-trajectory.ts';
import { type BoundSchedule, cheapestSchedule } from './cost-bound.ts';
import { type BoundPricing, billArmWindows } from './schedule-bill.ts';

/** The arm the bound is taken on: the default policy, whose distance to the bound is the question. */
export const BOUND_ARM: ArmName = 'fold';

/** A recorder for the arm the bound is taken on, else none. */
export function boundRecorderFor(arm: ArmName): TrajectoryRecorder | undefined {
  return arm === BOUND_ARM ? new TrajectoryRecorder() : undefined;
}

/** The pricing the arms of a run were billed and bounded by, the floor at its default. */
export function boundPricing(settings: LabRunSettings, tokenScale = 1): BoundPricing {
  return {
    priceList: priceListOf(settings),
    cacheRules: settings.cacheRules,
    tokenScale,
    budgetTokens: settings.descriptorTokens,
    capTokens: settings.providerCapTokens,
    floorTokens: floorTokensFor(DEFAULT_RAW_FLOOR_TOKENS, settings.descriptorTokens),
  };
}

/** The bound on what `recorder` saw, priced as the run's arms were; undefined when it saw no request (a runner that reports no prompts). */
export function costBound(
  recorder: TrajectoryRecorder,
  settings: LabRunSettings,
  tokenScale = 1,
): CostBound | undefined {
  const trajectory = recorder.trajectory();
  if (trajectory.requests.length === 0) return undefined;
  const pricing = boundPricing(settings, tokenScale);
  const schedule = feasibleSchedule(trajectory, pricing);
  if (schedule === undefined) return undefined;
  const commits = commitsOf(schedule.cuts);
  const scaled = (tokens: number): number => (tokenScale === 1 ? tokens : Math.round(tokens * tokenScale));
  return {
    arm: BOUND_ARM,
    costUsd: schedule.costUsd,
    requests: trajectory.requests.length,
    entries: trajectory.entries.length,
    fixedTokens: trajectory.fixed.reduce((sum, part) => sum + scaled(part.tokens.length), 0),
    floorTokens: pricing.floorTokens,
    commits,
    coldCommits: commits.filter((request) => cacheColdAt(trajectory, pricing, request)).length,
    ...optionalArmWindows(billArmWindows(trajectory, pricing)),
    unalignedRequests: recorder.unaligned,
  };
}

/**
 * The cheapest schedule, or undefined where none keeps every prompt under the cap (the arm's
 * own requests all fit, so only a window the arm could not have sent does this): a run's
 * report is not lost for its bound.
 */
function feasibleSchedule(trajectory: BoundTrajectory, pricing: BoundPricing): BoundSchedule | undefined {
  try {
    return cheapestSchedule(trajectory, pricing);
  } catch (error) {
    if (FoldError.isInstance(error) && error.code === 'BUDGET.EXCEEDED') return undefined;
    throw error;
  }
}

/**
 * Whether a request finds the cache cold whatever the schedule: emptied, holding no more than
 * the fixed block (a provider's loss; a commit reads no more than that anyway), or idle past
 * the cache's lifetime.
 */
function cacheColdAt(trajectory: BoundTrajectory, pricing: BoundPricing, request: number): boolean {
  const { cold, keptTokens, nowSeconds } = trajectory.requests[request]!;
  const fixedTokens = trajectory.fixed.reduce((sum, part) => sum + part.tokens.length, 0);
  if (keptTokens !== undefined && keptTokens <= fixedTokens) return true;
  if (cold || request === 0) return cold;
  return nowSeconds - trajectory.requests[request - 1]!.nowSeconds > pricing.cacheRules.ttlSeconds;
}

/** The requests at which a schedule moves its cut deeper. */
function commitsOf(cuts: readonly number[]): number[] {
  return cuts.flatMap((cut, request) => (cut > (request === 0 ? 0 : cuts[request - 1]!) ? [request] : []));
}

function optionalArmWindows(costUsd: number | undefined): { armWindowsUsd?: number } {
  return costUsd === undefined ? {} : { armWindowsUsd: costUsd };
}
