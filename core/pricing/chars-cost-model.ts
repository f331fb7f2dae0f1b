/** Room core/pricing/: tokens and dollars, from price lists and model windows to the budget and usage. */

import type { CostModel, ModelCatalog, PriceList, RequestUsage } from '../../ports/cost-model.port.ts';
import { FoldError } from '../fold-error.ts';
import { priceListForModel } from './model-windows.ts';
import { DEFAULT_PRICE_LIST, ratesFor } from './price-lists.ts';

/**
 * The default CostModel: chars ÷ 4 until provider counts calibrate it, and a tiered price
 * list. No tokenizer dependency, so the engine runs anywhere. Given no `priceList`, it prices
 * each request by its model id where the catalog knows the model (`priceListForModel`: the
 * built-in list, or a maintained one such as pi-ai's registry given as `catalog`), else by the
 * seeds' ledger; a given `priceList` serves every model.
 */
export function createCharsCostModel(
  options: { charsPerToken?: number; priceList?: PriceList; catalog?: ModelCatalog } = {},
): CostModel {
  const charsPerToken = options.charsPerToken ?? 4;
  if (!Number.isFinite(charsPerToken) || charsPerToken < 1 || charsPerToken > 16) {
    throw new FoldError('SETTINGS.INVALID', `charsPerToken must be between 1 and 16, got ${charsPerToken}`);
  }
  const priceList = options.priceList ?? DEFAULT_PRICE_LIST;
  const byModel = options.priceList === undefined;
  // The scheduler asks for the same model's list several times a request; the catalog walk is done once per model.
  let lastModelKey: string | undefined;
  let lastModelList: PriceList | undefined;
  const listForModel = (key: string): PriceList | undefined => {
    if (key !== lastModelKey) {
      lastModelList = priceListForModel(key, options.catalog);
      lastModelKey = key;
    }
    return lastModelList;
  };
  return {
    specificationVersion: 'v1',
    defaultCharsPerToken: charsPerToken,
    priceList,
    estimateTokens: (text) => Math.ceil(text.length / charsPerToken),
    price: (usage) => priceRequest(priceList, usage),
    priceListFor: (model) =>
      byModel && model?.id !== undefined
        ? listForModel(model.provider === undefined ? model.id : `${model.provider}/${model.id}`)
        : undefined,
  };
}

/**
 * Dollars for one request: the whole request at the long-context rates when its prompt is over
 * the boundary; writes with the long cache lifetime at their own rate, where the list has one.
 */
export function priceRequest(priceList: PriceList, usage: RequestUsage): number {
  const rates = ratesFor(priceList, usage.input + usage.cacheRead + usage.cacheWrite);
  const longWrites = Math.min(usage.cacheWrite, usage.cacheWriteLong ?? 0);
  return (
    (usage.input * rates.input +
      usage.cacheRead * rates.cacheRead +
      (usage.cacheWrite - longWrites) * rates.cacheWrite +
      longWrites * (rates.cacheWriteLong ?? rates.cacheWrite) +
      usage.output * rates.output) /
    1_000_000
  );
}
