/**
 * CostModel: tokens and prices. Everything model-like sits behind this port so the engine
 * runs offline and deterministically. The commit scheduler decides through it alone
 * (`docs/cost-scheduling.md`): it holds no price of its own.
 */

/** Tokens one request used, as a provider reports them. */
export interface RequestUsage {
  /** Input tokens neither read from nor written to the cache (the prompt is input + cacheRead + cacheWrite). */
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
  /**
   * Of `cacheWrite`, the tokens written with the provider's long cache lifetime (Anthropic's
   * `ephemeral_1h`), billed at `PriceRates.cacheWriteLong`. Absent: every write was short-lived.
   */
  readonly cacheWriteLong?: number;
}

/** Per-million-token rates of one pricing tier. */
export interface PriceRates {
  readonly input: number;
  readonly cacheRead: number;
  /**
   * What a prompt token costs the first time it enters the provider's cache. Providers that
   * bill no write surcharge (OpenAI, Gemini's implicit cache) list their input rate here.
   */
  readonly cacheWrite: number;
  readonly output: number;
  /**
   * What a token written with the long cache lifetime costs (Anthropic: 2× input for 1 h,
   * against 1.25× for 5 min). Absent: the provider has no long lifetime, and a long write is
   * billed at `cacheWrite`.
   */
  readonly cacheWriteLong?: number;
}

/** A price list: base rates, and optional long-context rates above a prompt-size boundary. */
export interface PriceList {
  readonly name: string;
  readonly base: PriceRates;
  /** Applied to the whole request when its prompt (input + cache read + cache write) exceeds `aboveTokens`. */
  readonly longContext?: { readonly aboveTokens: number; readonly rates: PriceRates };
  /**
   * How long a cached prefix survives without a request that reads it, in seconds, where the
   * provider states one (Anthropic: 300, refreshed on every hit). Absent: unknown, so an idle
   * gap never counts as a cold cache (a model switch still does).
   */
  readonly cacheLifetimeSeconds?: number;
  /**
   * How long an entry written with the long lifetime survives without a hit, where the provider
   * offers one (Anthropic: 3600).
   */
  readonly longCacheLifetimeSeconds?: number;
  /**
   * Model ids this list prices, matched as prefixes of the recorded or requested model id
   * (`claude-sonnet-4-5` prices `claude-sonnet-4-5-20250929`); the longest match wins.
   */
  readonly models?: readonly string[];
  /** Where the figures come from and when they were read, for the reader of a report. */
  readonly source?: string;
}

/** One model as a catalog knows it: its prompt limit and its price list. */
export interface CatalogModel {
  /** The catalog's own id of the model that matched, with its provider (`anthropic/claude-sonnet-4-5`). */
  readonly id: string;
  /** The most prompt tokens the provider accepts. */
  readonly maxPromptTokens: number;
  readonly priceList: PriceList;
}

/**
 * Windows and prices by model id, from a maintained registry (Pi's `pi-ai`) or pi-fold's
 * small built-in list. The engine never knows which: it asks through the cost model.
 */
export interface ModelCatalog {
  /** Where the figures come from, for a report: a package and its version, or the built-in list. */
  readonly source: string;
  /**
   * The model a recorded or requested id names (a `provider/` prefix and a date suffix allowed);
   * undefined when unknown.
   */
  lookup(modelId: string): CatalogModel | undefined;
}

/**
 * Version 1 of the port. Token estimation is `estimateTokens` before any provider count;
 * the engine then calibrates chars per token from the provider's own counts (`core/pricing/occupancy-estimator.ts`).
 */
export interface CostModelV1 {
  readonly specificationVersion: 'v1';
  /** Estimated tokens of a text, before calibration against provider counts. */
  estimateTokens(text: string): number;
  /** Default chars per token used before any provider count has been seen. */
  readonly defaultCharsPerToken: number;
  /** Dollars for one request under the model's price list. */
  price(usage: RequestUsage): number;
  /** The price list of every model this cost model does not tell apart. */
  readonly priceList: PriceList;
  /**
   * The price list of the model a request goes to, when this cost model knows it (a lookup by
   * model id); absent, or undefined for a model, means `priceList` serves it.
   */
  priceListFor?(model: { readonly id?: string; readonly provider?: string } | undefined): PriceList | undefined;
}

export type CostModel = CostModelV1;
