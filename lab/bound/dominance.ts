import type { PriceRates } from '../../ports/cost-model.port.ts';
import type { BoundTrajectory } from './bound-trajectory.ts';
import type { BoundPricing } from './schedule-bill.ts';

/**
 * The most one later request can cost a schedule for holding a deeper cut than another's,
 * in dollars. Take two states at the same request, cut c < c'. Follow any schedule S from c;
 * the schedule from c' that holds max(c', S's cut) pays the same wherever S is at c' or
 * deeper (a request that is a commit in S and an append here pays no more: the same window,
 * more read from cache), and no more where S commits below c' (a smaller window, at least as
 * much read). Only where S appends below c' can the smaller window cost more, and only by the
 * cache's rounding: its read falls by at most the D tokens it dropped plus one granularity step
 * (or the whole minimum, where the fixed block alone is under it), so it pays at most that step
 * at the fresh-minus-read rate, less the D tokens' rent. A provider's token scale rounds each
 * part once more: one token more, and a part so short that its scaled count rounds up by more
 * than its rent covers (counted over every entry, almost always nothing).
 */
export function slackPerRequestUsd(trajectory: BoundTrajectory, pricing: BoundPricing): number {
  const { cacheRules, tokenScale, priceList } = pricing;
  const fixedTokens = trajectory.fixed.reduce((sum, part) => sum + part.tokens.length, 0);
  const stepTokens = Math.max(
    cacheRules.granularity - 1,
    fixedTokens < cacheRules.minimumTokens ? cacheRules.minimumTokens : 0,
  );
  const writesApart = priceList.base.cacheWrite !== priceList.base.input;
  const tiers: PriceRates[] = [
    priceList.base,
    ...(priceList.longContext === undefined ? [] : [priceList.longContext.rates]),
  ];
  let worst = 0;
  for (const rates of tiers) {
    const fresh = writesApart ? rates.cacheWrite : rates.input;
    let rounding = (fresh - rates.cacheRead) * (tokenScale * stepTokens + 1);
    if (tokenScale !== 1)
      for (const entry of trajectory.entries)
        rounding += Math.max(0, fresh / 2 - rates.cacheRead * tokenScale * entry.tokens.length);
    worst = Math.max(worst, rounding);
  }
  return worst / 1_000_000;
}

/**
 * Drop the states no schedule needs: a cut whose cost so far is at least a deeper cut's plus
 * the slack of every request left (`slackPerRequestUsd`) can do nothing the deeper one cannot
 * do as cheaply. The cheapest state of every run of deeper cuts is never dropped, so the
 * minimum stays exact. Returns how many states it dropped.
 */
export function pruneDominated(costs: Float64Array, requestsLeft: number, slackUsd: number): number {
  const margin = requestsLeft * slackUsd;
  let deeperCheapest = Number.POSITIVE_INFINITY;
  let dropped = 0;
  for (let cut = costs.length - 1; cut >= 0; cut -= 1) {
    const cost = costs[cut]!;
    if (!Number.isFinite(cost)) continue;
    if (cost >= deeperCheapest + margin) {
      costs[cut] = Number.POSITIVE_INFINITY;
      dropped += 1;
    } else deeperCheapest = Math.min(deeperCheapest, cost);
  }
  return dropped;
}
