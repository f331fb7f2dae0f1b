import type { CatalogModel, ModelCatalog, PriceList } from '../../ports/cost-model.port.ts';
import { MODEL_WINDOWS, type ModelWindow, PRICE_LISTS } from './price-lists.ts';

/** The window a runtime budgets against for a model, its hard prompt limit and its price list. */
export interface ModelLimits {
  readonly modelId: string;
  /** The catalog entry that matched. */
  readonly matched: string;
  /** The provider's hard prompt limit: prompts above it are refused. */
  readonly capTokens: number;
  /** The budget: the limit less a reserve for the reply, `min(16384, 10%)` (as the published runtime derives it). */
  readonly budgetTokens: number;
  readonly priceList: PriceList;
  /** The catalog that knew the model (`ModelCatalog.source`). */
  readonly catalog: string;
}

/** The reply reserve kept below a model's prompt limit. */
export function replyReserve(maxPromptTokens: number): number {
  return Math.min(16_384, Math.floor(maxPromptTokens * 0.1));
}

/** The id a catalog compares: lower case, no `provider/` prefix, no blanks. */
export function bareModelId(modelId: string): string {
  return modelId.toLowerCase().split('/').at(-1)!.trim();
}

/**
 * The built-in catalog: `MODEL_WINDOWS` by longest id prefix. A short list kept by hand, for
 * hosts without Pi's `pi-ai` registry (AI SDK users); where pi-ai is installed the lab and
 * `pi-fold replay` read its registry instead (adapters/backends/pi-ai-catalog).
 */
export const BUILT_IN_CATALOG: ModelCatalog = {
  source: 'built-in list (core/pricing/price-lists.ts MODEL_WINDOWS), the fallback where no pi-ai is installed',
  lookup(modelId: string): CatalogModel | undefined {
    const bare = bareModelId(modelId);
    let best: ModelWindow | undefined;
    for (const entry of MODEL_WINDOWS) {
      if (!bare.startsWith(entry.idPrefix)) continue;
      if (best === undefined || entry.idPrefix.length > best.idPrefix.length) best = entry;
    }
    const priceList = best === undefined ? undefined : PRICE_LISTS[best.priceList];
    if (best === undefined || priceList === undefined) return undefined;
    return { id: best.idPrefix, maxPromptTokens: best.maxPromptTokens, priceList };
  },
};

/**
 * Look a model id up in a catalog (case-insensitive; a `provider/` prefix and a date suffix
 * are allowed: `anthropic/claude-sonnet-4-5-20250929`). Undefined for an unknown model, so a
 * caller can say so rather than guess.
 */
export function modelLimits(modelId: string, catalog: ModelCatalog = BUILT_IN_CATALOG): ModelLimits | undefined {
  const found = catalog.lookup(modelId);
  if (found === undefined) return undefined;
  return {
    modelId,
    matched: found.id,
    capTokens: found.maxPromptTokens,
    budgetTokens: found.maxPromptTokens - replyReserve(found.maxPromptTokens),
    priceList: found.priceList,
    catalog: catalog.source,
  };
}

/**
 * The price list of a model by id: one of `PRICE_LISTS` by its own name (`gpt-5.6-ledger`),
 * else the catalog's entry for the model. Undefined for an unknown model (the caller's default serves it).
 */
export function priceListForModel(modelId: string, catalog: ModelCatalog = BUILT_IN_CATALOG): PriceList | undefined {
  const byName = PRICE_LISTS[modelId.trim().toLowerCase()];
  if (byName !== undefined) return byName;
  return catalog.lookup(modelId)?.priceList;
}
