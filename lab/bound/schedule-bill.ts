import { rawFloorStart } from '../../core/commit/policy/raw-floor.ts';
import { FoldError } from '../../core/fold-error.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';
import { type PrefixCacheRules, PrefixCacheSimulator, type PromptMessage } from '../provider/prefix-cache-simulator.ts';
import { priceBill, scaledCacheBill } from '../provider/request-bill.ts';
import type { BoundTrajectory } from './bound-trajectory.ts';

/** Everything a schedule is billed and bounded by: the arms' own price list, cache rules, window and floor. */
export interface BoundPricing {
  readonly priceList: PriceList;
  readonly cacheRules: PrefixCacheRules;
  /** Provider tokens per lab token (`SimulatedProviderOptions.tokenScale`). */
  readonly tokenScale: number;
  /** The window the runtimes budget against (the fence, I6). */
  readonly budgetTokens: number;
  /** Prompts above this are refused: a schedule that sends one is no schedule. */
  readonly capTokens: number;
  /** The raw floor in force (`floorTokensFor`): no commit folds the newest this many of Pi's tokens. */
  readonly floorTokens: number;
}

/** The floor is counted with at least Pi's 4 chars per token; the bound takes exactly 4, the fewest entries any runtime keeps. */
const FLOOR_CHARS_PER_TOKEN = 4;

const NO_TOKENS = new Uint32Array(0);

/**
 * What the bound sends at `request` with the first `cut` entries folded: the fixed block, one
 * element standing for every fold (it carries no tokens, and its digest names the depth, so a
 * window at another depth shares exactly the fixed block with it), then the entries from `cut`.
 */
export function boundWindow(trajectory: BoundTrajectory, request: number, cut: number): PromptMessage[] {
  const entries = trajectory.requests[request]!.entries;
  const window: PromptMessage[] = [...trajectory.fixed];
  if (cut > 0) window.push({ digest: `bound-folds:${cut}`, tokens: NO_TOKENS });
  for (let position = cut; position < entries; position += 1) window.push(trajectory.entries[position]!);
  return window;
}

/**
 * The deepest cut each request may have: every entry before the floor (B3.2), or, where even
 * that window is over the budget, every entry (the fence may fold inside the floor, I6). What
 * the fence once folded stays folded, so a cut allowed once stays allowed.
 */
export function deepestCuts(trajectory: BoundTrajectory, pricing: BoundPricing): number[] {
  const readCharsBefore = [0];
  const tokensBefore = [0];
  const scaled = (tokens: number): number =>
    pricing.tokenScale === 1 ? tokens : Math.round(tokens * pricing.tokenScale);
  trajectory.entries.forEach((entry, position) => {
    readCharsBefore.push(readCharsBefore[position]! + trajectory.readChars[position]!);
    tokensBefore.push(tokensBefore[position]! + scaled(entry.tokens.length));
  });
  const fixedTokens = trajectory.fixed.reduce((sum, part) => sum + scaled(part.tokens.length), 0);
  let allowed = 0;
  return trajectory.requests.map(({ entries }) => {
    const floorStart = rawFloorStart({ length: entries, readCharsBefore }, pricing.floorTokens, FLOOR_CHARS_PER_TOKEN);
    const windowTokens = fixedTokens + tokensBefore[entries]! - tokensBefore[floorStart]!;
    allowed = Math.max(allowed, windowTokens > pricing.budgetTokens ? entries : floorStart);
    return allowed;
  });
}

/** Dollars of one request of a schedule, from a cache that holds only the schedule's previous request. */
export function requestCost(
  trajectory: BoundTrajectory,
  pricing: BoundPricing,
  request: number,
  cut: number,
  previousCut: number | undefined,
): number {
  const cache = new PrefixCacheSimulator(pricing.cacheRules);
  if (previousCut !== undefined && request > 0)
    cache.bill(boundWindow(trajectory, request - 1, previousCut), trajectory.requests[request - 1]!.nowSeconds);
  return billOn(cache, trajectory, pricing, request, cut);
}

/**
 * Bill a whole schedule (`cuts[i]`: entries folded at request i) through one cache, request
 * after request, exactly as the simulated provider bills an arm. Refuses a schedule that
 * un-folds, folds past the floor, or sends a prompt over the cap.
 */
export function billSchedule(
  trajectory: BoundTrajectory,
  pricing: BoundPricing,
  cuts: readonly number[],
): { readonly costUsd: number; readonly requestCosts: readonly number[] } {
  if (cuts.length !== trajectory.requests.length)
    throw new FoldError(
      'SETTINGS.INVALID',
      `a schedule needs one cut per request: ${cuts.length} for ${trajectory.requests.length}`,
    );
  const deepest = deepestCuts(trajectory, pricing);
  const cache = new PrefixCacheSimulator(pricing.cacheRules);
  const requestCosts = cuts.map((cut, request) => {
    if (cut > deepest[request]! || (request > 0 && cut < cuts[request - 1]!))
      throw new FoldError(
        'SETTINGS.INVALID',
        `cut ${cut} at request ${request} is not a schedule's: cuts never go back, and none passes the floor (${deepest[request]})`,
      );
    return billOn(cache, trajectory, pricing, request, cut);
  });
  return { costUsd: requestCosts.reduce((sum, cost) => sum + cost, 0), requestCosts };
}

/**
 * Bill the recorded arm's own windows (`BoundRequest.armWindow`) through one cache: its
 * schedule exactly, with pi-fold's own messages carrying no tokens. Undefined when a request
 * has none recorded.
 */
export function billArmWindows(trajectory: BoundTrajectory, pricing: BoundPricing): number | undefined {
  if (trajectory.requests.some((request) => request.armWindow === undefined)) return undefined;
  const cache = new PrefixCacheSimulator(pricing.cacheRules);
  let costUsd = 0;
  trajectory.requests.forEach((request, position) => {
    costUsd += billOn(cache, trajectory, pricing, position, [...trajectory.fixed, ...request.armWindow!]);
  });
  return costUsd;
}

function billOn(
  cache: PrefixCacheSimulator,
  trajectory: BoundTrajectory,
  pricing: BoundPricing,
  request: number,
  cutOrWindow: number | readonly PromptMessage[],
): number {
  const { nowSeconds, cold, keptTokens, output } = trajectory.requests[request]!;
  if (cold) cache.expireAll();
  else if (keptTokens !== undefined) cache.keepPrefix(keptTokens, nowSeconds);
  const window = typeof cutOrWindow === 'number' ? boundWindow(trajectory, request, cutOrWindow) : cutOrWindow;
  const bill = scaledCacheBill(cache, window, nowSeconds, pricing.tokenScale);
  if (bill.promptTokens > pricing.capTokens) return Number.POSITIVE_INFINITY;
  return priceBill(pricing.priceList, bill, output).costUsd;
}
