import type { PriceList } from '../ports/cost-model.port.ts';

/**
 * Price lists are data. The default reproduces the seeds' ledger: base rates per million
 * tokens, and a long-context tier on any request whose prompt exceeds 272,000 tokens.
 */
export const PRICE_LISTS: Readonly<Record<string, PriceList>> = {
  'gpt-5.6-ledger': {
    name: 'gpt-5.6-ledger',
    base: { input: 5, cacheRead: 0.5, cacheWrite: 5, output: 30 },
    longContext: { aboveTokens: 272_000, rates: { input: 10, cacheRead: 1, cacheWrite: 10, output: 45 } },
  },
  'gpt-5.6-flat': {
    name: 'gpt-5.6-flat',
    base: { input: 5, cacheRead: 0.5, cacheWrite: 5, output: 30 },
  },
};

export const DEFAULT_PRICE_LIST = PRICE_LISTS['gpt-5.6-ledger']!;
