/**
 * CostModel: tokens and prices. Everything model-like sits behind this port so the engine
 * runs offline and deterministically.
 */

/** Tokens one request used, as a provider reports them. */
export interface RequestUsage {
  /** Input tokens neither read from nor written to the cache (the prompt is input + cacheRead + cacheWrite). */
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
}

/** Per-million-token rates of one pricing tier. */
export interface PriceRates {
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
}

/** A price list: base rates, and optional long-context rates above a prompt-size boundary. */
export interface PriceList {
  readonly name: string;
  readonly base: PriceRates;
  /** Applied to the whole request when its prompt (input + cache read + cache write) exceeds `aboveTokens`. */
  readonly longContext?: { readonly aboveTokens: number; readonly rates: PriceRates };
}

export interface CostModelV1 {
  readonly specificationVersion: 'v1';
  /** Estimated tokens of a text, before calibration against provider counts. */
  estimateTokens(text: string): number;
  /** Default chars per token used before any provider count has been seen. */
  readonly defaultCharsPerToken: number;
  /** Dollars for one request under the model's price list. */
  price(usage: RequestUsage): number;
  readonly priceList: PriceList;
}

export type CostModel = CostModelV1;
