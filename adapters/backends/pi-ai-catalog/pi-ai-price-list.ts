import type { CatalogModel, PriceList, PriceRates } from '../../../ports/cost-model.port.ts';

/** One pricing tier as pi-ai's registry lists it, USD per million tokens. */
export interface PiAiRates {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
}

/**
 * The fields of a pi-ai model entry this adapter reads. Pi 0.73 (`@mariozechner/pi-ai`) and
 * Pi 1.x (`@earendil-works/pi-ai`) both have them; 1.x adds long-context `tiers` and the
 * stated `promptCache` lifetimes.
 */
export interface PiAiModel {
  readonly id: string;
  readonly provider: string;
  readonly api?: string;
  readonly type?: string;
  readonly contextWindow?: number;
  readonly cost?: PiAiRates & { readonly tiers?: readonly (PiAiRates & { readonly inputTokensAbove: number })[] };
  readonly promptCache?: { readonly short?: number; readonly long?: number };
}

/** Anthropic's stated lifetimes (5 min, 1 h), for a registry that states none on a model speaking its Messages API. */
const ANTHROPIC_LIFETIMES = { short: 300, long: 3600 } as const;
/** OpenAI states 5–10 minutes of inactivity; the longer bound keeps a warm cache from being taken for cold. */
const OPENAI_LIFETIMES = { short: 600 } as const;
const OPENAI_PROVIDERS = new Set(['openai', 'azure', 'openai-codex']);

function lifetimesOf(model: PiAiModel): { readonly short?: number; readonly long?: number } {
  if (model.promptCache !== undefined) return model.promptCache;
  if (model.api === 'anthropic-messages') return ANTHROPIC_LIFETIMES;
  if (OPENAI_PROVIDERS.has(model.provider)) return OPENAI_LIFETIMES;
  return {};
}

/**
 * pi-ai lists a rate of 0 where the provider bills nothing apart: no cache-write premium
 * (OpenAI, DeepSeek: a written token costs plain input) or no cache discount known. pi-fold's
 * simulated and scheduled caches serve every prompt, so both read as the input rate: a 0 read
 * rate would make every cached token free. A long write costs 2× input (Anthropic's 1-hour
 * rule, the one pi-ai's own `calculateCost` applies) where the model has a long lifetime.
 */
function ratesOf(rates: PiAiRates, longLifetime: boolean): PriceRates {
  return {
    input: rates.input,
    cacheRead: rates.cacheRead > 0 ? rates.cacheRead : rates.input,
    cacheWrite: rates.cacheWrite > 0 ? rates.cacheWrite : rates.input,
    output: rates.output,
    ...(longLifetime ? { cacheWriteLong: rates.input * 2 } : {}),
  };
}

/** Whether an entry can price a session: a chat model with a window and a nonzero price. */
export function isPricedChatModel(model: PiAiModel): boolean {
  return (
    (model.type === undefined || model.type === 'chat') &&
    (model.contextWindow ?? 0) > 0 &&
    model.cost !== undefined &&
    (model.cost.input > 0 || model.cost.output > 0)
  );
}

/**
 * One registry entry as pi-fold's catalog model: its window as the prompt limit (Pi budgets
 * against the same figure), its rates, its lowest long-context tier (a price list has one),
 * and its cache lifetimes.
 */
export function catalogModelOf(model: PiAiModel, source: string): CatalogModel {
  const cost = model.cost!;
  const lifetimes = lifetimesOf(model);
  const long = lifetimes.long !== undefined;
  const tier = [...(cost.tiers ?? [])].sort((left, right) => left.inputTokensAbove - right.inputTokensAbove)[0];
  const id = `${model.provider}/${model.id}`;
  const priceList: PriceList = {
    name: id,
    base: ratesOf(cost, long),
    ...(tier === undefined ? {} : { longContext: { aboveTokens: tier.inputTokensAbove, rates: ratesOf(tier, long) } }),
    ...(lifetimes.short === undefined ? {} : { cacheLifetimeSeconds: lifetimes.short }),
    ...(lifetimes.long === undefined ? {} : { longCacheLifetimeSeconds: lifetimes.long }),
    models: [model.id],
    source,
  };
  return { id, maxPromptTokens: model.contextWindow!, priceList };
}
