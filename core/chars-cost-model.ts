import type { CostModel, PriceList, RequestUsage } from '../ports/cost-model.port.ts';
import { FoldError } from './fold-error.ts';
import { DEFAULT_PRICE_LIST } from './price-lists.ts';

/**
 * The default CostModel: chars ÷ 4 until provider counts calibrate it, and a tiered price
 * list. No tokenizer dependency, so the engine runs anywhere.
 */
export function createCharsCostModel(options: { charsPerToken?: number; priceList?: PriceList } = {}): CostModel {
  const charsPerToken = options.charsPerToken ?? 4;
  if (!Number.isFinite(charsPerToken) || charsPerToken < 1 || charsPerToken > 16) {
    throw new FoldError('SETTINGS.INVALID', `charsPerToken must be between 1 and 16, got ${charsPerToken}`);
  }
  const priceList = options.priceList ?? DEFAULT_PRICE_LIST;
  return {
    specificationVersion: 'v1',
    defaultCharsPerToken: charsPerToken,
    priceList,
    estimateTokens: (text) => Math.ceil(text.length / charsPerToken),
    price: (usage) => priceRequest(priceList, usage),
  };
}

/** Dollars for one request: the whole request at the long-context rates when its prompt is over the boundary. */
export function priceRequest(priceList: PriceList, usage: RequestUsage): number {
  const prompt = usage.input + usage.cacheRead + usage.cacheWrite;
  const rates = priceList.longContext !== undefined && prompt > priceList.longContext.aboveTokens ? priceList.longContext.rates : priceList.base;
  return (usage.input * rates.input + usage.cacheRead * rates.cacheRead + usage.cacheWrite * rates.cacheWrite + usage.output * rates.output) / 1_000_000;
}
