import type { PriceList, PriceRates } from '../../ports/cost-model.port.ts';

/**
 * Price lists are data (USD per million tokens). The default reproduces the seeds' ledger:
 * base rates, and a long-context tier on any request whose prompt exceeds 272,000 tokens.
 * The named models' lists are the providers' published list prices (late 2025; check a
 * provider's page before relying on a figure). `cacheWrite` is what a provider charges for
 * input it writes to its prompt cache: Anthropic charges a premium (1.25× input, 5-minute
 * cache); OpenAI and Gemini (implicit caching) charge plain input, so there it equals `input`.
 */
const rates = (input: number, cacheRead: number, cacheWrite: number, output: number): PriceRates => ({
  input,
  cacheRead,
  cacheWrite,
  output,
});

/** Anthropic's rates: writes with the 1-hour lifetime cost 2× input (5-minute writes 1.25×). */
const anthropicRates = (input: number, cacheRead: number, cacheWrite: number, output: number): PriceRates => ({
  ...rates(input, cacheRead, cacheWrite, output),
  cacheWriteLong: input * 2,
});

/**
 * Cache lifetimes, in seconds without a hit. Anthropic's default entry lives 5 minutes,
 * refreshed by every hit, and one written with the 1-hour lifetime (Claude Code's
 * `ephemeral_1h`) an hour; OpenAI states 5-10 minutes of inactivity (up to an hour off-peak),
 * and the longer bound keeps a warm cache from being taken for cold; the lab's simulated cache
 * keeps 300 s. Gemini states none for its implicit cache, so its lists carry none.
 */
const ANTHROPIC_CACHE = { cacheLifetimeSeconds: 300, longCacheLifetimeSeconds: 3600 } as const;
const OPENAI_CACHE = { cacheLifetimeSeconds: 600 } as const;
const LAB_CACHE = { cacheLifetimeSeconds: 300 } as const;

export const PRICE_LISTS: Readonly<Record<string, PriceList>> = {
  'gpt-5.6-ledger': {
    name: 'gpt-5.6-ledger',
    base: rates(5, 0.5, 5, 30),
    longContext: { aboveTokens: 272_000, rates: rates(10, 1, 10, 45) },
    ...LAB_CACHE,
  },
  'gpt-5.6-flat': { name: 'gpt-5.6-flat', base: rates(5, 0.5, 5, 30), ...LAB_CACHE },
  // Anthropic: 5-minute cache writes at 1.25× input, reads at 0.1×.
  'claude-opus-4-5': { name: 'claude-opus-4-5', base: anthropicRates(5, 0.5, 6.25, 25), ...ANTHROPIC_CACHE },
  'claude-opus-4': { name: 'claude-opus-4', base: anthropicRates(15, 1.5, 18.75, 75), ...ANTHROPIC_CACHE },
  // Sonnet 4/4.5 bill a whole request above 200k prompt tokens (1M-context beta) at the long-context rates.
  'claude-sonnet-4-5': {
    name: 'claude-sonnet-4-5',
    base: anthropicRates(3, 0.3, 3.75, 15),
    longContext: { aboveTokens: 200_000, rates: anthropicRates(6, 0.6, 7.5, 22.5) },
    ...ANTHROPIC_CACHE,
  },
  'claude-sonnet-3-7': { name: 'claude-sonnet-3-7', base: anthropicRates(3, 0.3, 3.75, 15), ...ANTHROPIC_CACHE },
  'claude-haiku-4-5': { name: 'claude-haiku-4-5', base: anthropicRates(1, 0.1, 1.25, 5), ...ANTHROPIC_CACHE },
  'claude-haiku-3-5': { name: 'claude-haiku-3-5', base: anthropicRates(0.8, 0.08, 1, 4), ...ANTHROPIC_CACHE },
  // OpenAI: cached input at 0.1× (GPT-5 family) or 0.25×–0.5× (older); no write premium.
  'gpt-5': { name: 'gpt-5', base: rates(1.25, 0.125, 1.25, 10), ...OPENAI_CACHE },
  'gpt-5-mini': { name: 'gpt-5-mini', base: rates(0.25, 0.025, 0.25, 2), ...OPENAI_CACHE },
  'gpt-5-nano': { name: 'gpt-5-nano', base: rates(0.05, 0.005, 0.05, 0.4), ...OPENAI_CACHE },
  'gpt-4.1': { name: 'gpt-4.1', base: rates(2, 0.5, 2, 8), ...OPENAI_CACHE },
  'gpt-4.1-mini': { name: 'gpt-4.1-mini', base: rates(0.4, 0.1, 0.4, 1.6), ...OPENAI_CACHE },
  'gpt-4o': { name: 'gpt-4o', base: rates(2.5, 1.25, 2.5, 10), ...OPENAI_CACHE },
  o3: { name: 'o3', base: rates(2, 0.5, 2, 8), ...OPENAI_CACHE },
  'o4-mini': { name: 'o4-mini', base: rates(1.1, 0.275, 1.1, 4.4), ...OPENAI_CACHE },
  // Gemini: prompts over 200k tokens bill the whole request at the higher tier.
  'gemini-2.5-pro': {
    name: 'gemini-2.5-pro',
    base: rates(1.25, 0.125, 1.25, 10),
    longContext: { aboveTokens: 200_000, rates: rates(2.5, 0.25, 2.5, 15) },
  },
  'gemini-2.5-flash': { name: 'gemini-2.5-flash', base: rates(0.3, 0.03, 0.3, 2.5) },
  'gemini-3-pro': {
    name: 'gemini-3-pro',
    base: rates(2, 0.2, 2, 12),
    longContext: { aboveTokens: 200_000, rates: rates(4, 0.4, 4, 18) },
  },
};

export const DEFAULT_PRICE_LIST = PRICE_LISTS['gpt-5.6-ledger']!;

/** The rates in force for a prompt of `promptTokens`: the long-context tier above its line, else the base. */
export function ratesFor(priceList: PriceList, promptTokens: number): PriceRates {
  return priceList.longContext !== undefined && promptTokens > priceList.longContext.aboveTokens
    ? priceList.longContext.rates
    : priceList.base;
}

/** What a model family really had: its prompt limit and its price list. */
export interface ModelWindow {
  /** Model ids this entry covers: the id with any provider prefix (`anthropic/`) removed starts with this. */
  readonly idPrefix: string;
  /** The most prompt tokens the provider accepts (the context window, or the input limit where it is lower). */
  readonly maxPromptTokens: number;
  /** A key of `PRICE_LISTS`. */
  readonly priceList: string;
}

/**
 * Model ids to windows and price lists, longest prefix first where ids overlap (`gpt-5-mini`
 * before `gpt-5`). GPT-5's window is 400k of which 272k may be input; Sonnet's 1M window is a
 * beta that sessions rarely have, so its standard 200k is the default.
 */
export const MODEL_WINDOWS: readonly ModelWindow[] = [
  { idPrefix: 'claude-opus-4-5', maxPromptTokens: 200_000, priceList: 'claude-opus-4-5' },
  { idPrefix: 'claude-opus-4', maxPromptTokens: 200_000, priceList: 'claude-opus-4' },
  { idPrefix: 'claude-sonnet-4', maxPromptTokens: 200_000, priceList: 'claude-sonnet-4-5' },
  { idPrefix: 'claude-3-7-sonnet', maxPromptTokens: 200_000, priceList: 'claude-sonnet-3-7' },
  { idPrefix: 'claude-haiku-4-5', maxPromptTokens: 200_000, priceList: 'claude-haiku-4-5' },
  { idPrefix: 'claude-3-5-haiku', maxPromptTokens: 200_000, priceList: 'claude-haiku-3-5' },
  { idPrefix: 'haiku', maxPromptTokens: 200_000, priceList: 'claude-haiku-4-5' },
  { idPrefix: 'sonnet', maxPromptTokens: 200_000, priceList: 'claude-sonnet-4-5' },
  { idPrefix: 'opus', maxPromptTokens: 200_000, priceList: 'claude-opus-4-5' },
  { idPrefix: 'gpt-5-mini', maxPromptTokens: 272_000, priceList: 'gpt-5-mini' },
  { idPrefix: 'gpt-5-nano', maxPromptTokens: 272_000, priceList: 'gpt-5-nano' },
  { idPrefix: 'gpt-5', maxPromptTokens: 272_000, priceList: 'gpt-5' },
  { idPrefix: 'gpt-4.1-mini', maxPromptTokens: 1_047_576, priceList: 'gpt-4.1-mini' },
  { idPrefix: 'gpt-4.1', maxPromptTokens: 1_047_576, priceList: 'gpt-4.1' },
  { idPrefix: 'gpt-4o', maxPromptTokens: 128_000, priceList: 'gpt-4o' },
  { idPrefix: 'o3', maxPromptTokens: 200_000, priceList: 'o3' },
  { idPrefix: 'o4-mini', maxPromptTokens: 200_000, priceList: 'o4-mini' },
  { idPrefix: 'gemini-2.5-pro', maxPromptTokens: 1_048_576, priceList: 'gemini-2.5-pro' },
  { idPrefix: 'gemini-2.5-flash', maxPromptTokens: 1_048_576, priceList: 'gemini-2.5-flash' },
  { idPrefix: 'gemini-3-pro', maxPromptTokens: 1_048_576, priceList: 'gemini-3-pro' },
];
