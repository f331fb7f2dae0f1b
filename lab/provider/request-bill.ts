import { priceRequest } from '../../core/pricing/chars-cost-model.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';
import type { PrefixCacheSimulator, PromptMessage } from './prefix-cache-simulator.ts';

/** One prompt as the provider reports it: every count scaled to the provider's own tokens. */
export interface ScaledCacheBill {
  /** Each wire element's tokens, scaled on its own so the parts still add up to the prompt. */
  readonly partTokens: readonly number[];
  readonly promptTokens: number;
  readonly cacheRead: number;
  readonly fresh: number;
}

/**
 * Serve `prompt` from `cache` at `nowSeconds` and scale the counts by `tokenScale` (tokens the
 * provider reports per lab token, lab/replay/token-scale.ts). What is cached and compared
 * stays the lab's tokens. The simulated provider and the cost bound both bill through here,
 * so a schedule the bound prices is billed exactly as an arm's request would be.
 */
export function scaledCacheBill(
  cache: PrefixCacheSimulator,
  prompt: readonly PromptMessage[],
  nowSeconds: number,
  tokenScale = 1,
): ScaledCacheBill {
  const scaled = (tokens: number): number => (tokenScale === 1 ? tokens : Math.round(tokens * tokenScale));
  const partTokens = prompt.map((part) => scaled(part.tokens.length));
  const promptTokens = partTokens.reduce((sum, tokens) => sum + tokens, 0);
  const labBill = cache.bill(prompt, nowSeconds);
  const cacheRead = Math.min(promptTokens, scaled(labBill.cacheRead));
  return { partTokens, promptTokens, cacheRead, fresh: promptTokens - cacheRead };
}

/** A billed request's usage by rate, and its dollars. */
export interface PricedBill {
  readonly usage: {
    readonly input: number;
    readonly cacheRead: number;
    readonly cacheWrite: number;
    readonly output: number;
  };
  readonly costUsd: number;
}

/** Price a served prompt and its reply of `output` tokens under `priceList`. */
export function priceBill(
  priceList: PriceList,
  bill: Pick<ScaledCacheBill, 'cacheRead' | 'fresh'>,
  output: number,
): PricedBill {
  // Every prompt enters the simulated cache, so its fresh tokens are cache writes where the price list bills writes apart.
  const writes = priceList.base.cacheWrite !== priceList.base.input ? bill.fresh : 0;
  const usage = { input: bill.fresh - writes, cacheRead: bill.cacheRead, cacheWrite: writes, output };
  return { usage, costUsd: priceRequest(priceList, usage) };
}
