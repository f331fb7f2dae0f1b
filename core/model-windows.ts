import type { PriceList } from '../ports/cost-model.port.ts';
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
  readonly priceList: string;
}

/** The reply reserve kept below a model's prompt limit. */
export function replyReserve(maxPromptTokens: number): number {
  return Math.min(16_384, Math.floor(maxPromptTokens * 0.1));
}

/**
 * Look a model id up in `MODEL_WINDOWS` (case-insensitive; a `provider/` prefix and a date
 * suffix are allowed: `anthropic/claude-sonnet-4-5-20250929`). Undefined for an unknown model,
 * so a caller can say so rather than guess.
 */
export function modelLimits(modelId: string): ModelLimits | undefined {
  const bare = modelId.toLowerCase().split('/').at(-1)!.trim();
  let best: ModelWindow | undefined;
  for (const entry of MODEL_WINDOWS) {
    if (!bare.startsWith(entry.idPrefix)) continue;
    if (best === undefined || entry.idPrefix.length > best.idPrefix.length) best = entry;
  }
  if (best === undefined || PRICE_LISTS[best.priceList] === undefined) return undefined;
  return {
    modelId,
    matched: best.idPrefix,
    capTokens: best.maxPromptTokens,
    budgetTokens: best.maxPromptTokens - replyReserve(best.maxPromptTokens),
    priceList: best.priceList,
  };
}

/**
 * The price list of a model by id: a list's own name (`gpt-5.6-ledger`), else the catalog
 * entry `modelLimits` matches. Undefined for an unknown model (the caller's default serves it).
 */
export function priceListForModel(modelId: string): PriceList | undefined {
  const byName = PRICE_LISTS[modelId.trim().toLowerCase()];
  if (byName !== undefined) return byName;
  const limits = modelLimits(modelId);
  return limits === undefined ? undefined : PRICE_LISTS[limits.priceList];
}
