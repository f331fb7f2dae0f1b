import { floorTokensFor } from '../../core/commit/policy/raw-floor.ts';
import { DEFAULT_RAW_FLOOR_TOKENS } from '../../core/settings.ts';
import { priceListOf } from '../report/cost-split.ts';
import type { ArmName, CostBound, LabRunSettings } from '../report/lab-records.ts';
import { TrajectoryRecorder } from './bound-trajectory.ts';
import { cheapestSchedule } from './cost-bound.ts';
import type { BoundPricing } from './schedule-bill.ts';

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
  const schedule = cheapestSchedule(trajectory, pricing);
  const commits = schedule.cuts.flatMap((cut, request) =>
    cut > (request === 0 ? 0 : schedule.cuts[request - 1]!) ? [request] : [],
  );
  const scaled = (tokens: number): number => (tokenScale === 1 ? tokens : Math.round(tokens * tokenScale));
  return {
    arm: BOUND_ARM,
    costUsd: schedule.costUsd,
    requests: trajectory.requests.length,
    entries: trajectory.entries.length,
    fixedTokens: trajectory.fixed.reduce((sum, part) => sum + scaled(part.tokens.length), 0),
    floorTokens: pricing.floorTokens,
    commits,
    unalignedRequests: recorder.unaligned,
  };
}
