import { FoldError } from '../../core/fold-error.ts';
import type { BoundTrajectory } from './bound-trajectory.ts';
import { pruneDominated, slackPerRequestUsd } from './dominance.ts';
import { type BoundPricing, billSchedule, deepestCuts, requestCost } from './schedule-bill.ts';

/** The cheapest schedule found: the entries folded at each request, and what it is billed. */
export interface BoundSchedule {
  readonly cuts: readonly number[];
  readonly costUsd: number;
}

/** Marks a state's cheapest way in as an append (the cut it had at the request before). */
const APPENDED = -1;

/**
 * The cheapest schedule any lossless runtime could run on `trajectory`, by perfect foresight
 * (docs/cost-scheduling.md, "The bound"). A schedule folds, at each request, the first `cut`
 * entries; a cut never goes back and never passes the floor (`deepestCuts`). Between two
 * requests it either keeps its cut (a pure append, read from cache up to the previous prompt)
 * or moves it deeper (a commit: only the fixed block is read from cache). What a request costs
 * depends on nothing but its own cut, the cut before it, and (for a commit) not even that: a
 * window at another depth shares exactly the fixed block, and a cache that has lost the
 * previous prompt has lost every older one. So a dynamic program over (request, cut) finds the
 * minimum, each step priced by the real cache and price list (`requestCost`); the schedule it
 * finds is billed again through one cache (`billSchedule`) and the two must agree.
 */
export function cheapestSchedule(trajectory: BoundTrajectory, pricing: BoundPricing): BoundSchedule {
  const requests = trajectory.requests.length;
  if (requests === 0) return { cuts: [], costUsd: 0 };
  const deepest = deepestCuts(trajectory, pricing);
  const slackUsd = slackPerRequestUsd(trajectory, pricing);
  const ways: KeptWays[] = [];
  let costs: Float64Array = new Float64Array(deepest[0]! + 1);
  for (let cut = 0; cut <= deepest[0]!; cut += 1) costs[cut] = requestCost(trajectory, pricing, 0, cut, undefined);
  pruneDominated(costs, requests - 1, slackUsd);
  ways.push(keptWays(costs, new Int32Array(costs.length).fill(APPENDED)));
  for (let request = 1; request < requests; request += 1) {
    const step = nextCosts(trajectory, pricing, request, costs, deepest[request]!);
    pruneDominated(step.costs, requests - 1 - request, slackUsd);
    costs = step.costs;
    ways.push(keptWays(costs, step.ways));
  }
  let cut = 0;
  for (let candidate = 1; candidate < costs.length; candidate += 1)
    if (costs[candidate]! < costs[cut]!) cut = candidate;
  const found = costs[cut]!;
  if (!Number.isFinite(found))
    throw new FoldError('BUDGET.EXCEEDED', 'no schedule keeps every request under the provider cap');
  const cuts = new Array<number>(requests);
  for (let request = requests - 1; request >= 0; request -= 1) {
    cuts[request] = cut;
    const kept = ways[request]!;
    const way = kept.ways[cut - kept.from]!;
    if (way !== APPENDED) cut = way;
  }
  const billed = billSchedule(trajectory, pricing, cuts).costUsd;
  // The program's sum and one cache's bill of its schedule are the same arithmetic in another order.
  if (Math.abs(billed - found) > 1e-9 * Math.max(1, billed))
    throw new FoldError('INVARIANT.BROKEN', `the bound's schedule bills $${billed} through one cache, not $${found}`);
  return { cuts, costUsd: billed };
}

/** How each state a request kept was reached, from its shallowest live cut on (the rest can lie on no cheapest path). */
interface KeptWays {
  readonly from: number;
  readonly ways: Int32Array;
}

function keptWays(costs: Float64Array, ways: Int32Array): KeptWays {
  let from = 0;
  while (from < costs.length - 1 && !Number.isFinite(costs[from]!)) from += 1;
  return { from, ways: ways.slice(from) };
}

/** One request's step: the cheapest cost of reaching each cut, and from where. */
function nextCosts(
  trajectory: BoundTrajectory,
  pricing: BoundPricing,
  request: number,
  previous: Float64Array,
  deepest: number,
): { costs: Float64Array; ways: Int32Array } {
  const costs = new Float64Array(deepest + 1);
  const ways = new Int32Array(deepest + 1);
  // The cheapest previous state with a cut below this one: a commit may come from any of them.
  let cheapestBelow = Number.POSITIVE_INFINITY;
  let cheapestBelowCut = 0;
  for (let cut = 0; cut <= deepest; cut += 1) {
    let best = Number.POSITIVE_INFINITY;
    let way = APPENDED;
    if (cut < previous.length && Number.isFinite(previous[cut]!))
      best = previous[cut]! + requestCost(trajectory, pricing, request, cut, cut);
    if (Number.isFinite(cheapestBelow)) {
      const committed = cheapestBelow + requestCost(trajectory, pricing, request, cut, cheapestBelowCut);
      if (committed < best) {
        best = committed;
        way = cheapestBelowCut;
      }
    }
    costs[cut] = best;
    ways[cut] = way;
    if (cut < previous.length && previous[cut]! < cheapestBelow) {
      cheapestBelow = previous[cut]!;
      cheapestBelowCut = cut;
    }
  }
  return { costs, ways };
}
