import { FoldError } from '../../core/fold-error.ts';

/** One message of a prompt in wire order, already tokenized (tokenize each message once). */
export interface PromptMessage {
  readonly digest: string;
  /** Token ids (a plain array or, as the lab tokenizer keeps them, 4 bytes each). */
  readonly tokens: readonly number[] | Uint32Array;
}

/** The stated rules of a provider's prefix cache. */
export interface PrefixCacheRules {
  /** Prefixes shorter than this are never served from cache. @default 1024 */
  readonly minimumTokens: number;
  /** Cached lengths are rounded down to a multiple of this. @default 128 */
  readonly granularity: number;
  /** An entry not used for this many simulated seconds expires. @default 300 */
  readonly ttlSeconds: number;
  /** Entries kept at most (least recently used go first). @default 16 */
  readonly maxEntries: number;
}

export const DEFAULT_CACHE_RULES: PrefixCacheRules = {
  minimumTokens: 1024,
  granularity: 128,
  ttlSeconds: 300,
  maxEntries: 16,
};

/** How one request was billed. */
export interface CacheBill {
  readonly promptTokens: number;
  readonly cacheRead: number;
  readonly fresh: number;
}

interface CacheEntry {
  readonly prompt: readonly PromptMessage[];
  lastUsed: number;
  /** This entry's lifetime without a hit: a long-lived write (Anthropic's 1 h) outlives the rules' default. */
  readonly ttlSeconds: number;
  /** Tokens from the start the provider still serves of it: all, unless it dropped the rest (`keepPrefix`). */
  reach: number;
}

/**
 * A positional prefix cache: a request is served from cache up to the longest prefix it
 * shares, token for token, with a recently sent prompt; everything after is fresh input.
 * Messages are compared by digest first, then token by token inside the first one that
 * differs, so a request costs what it appended rather than the whole prompt.
 */
export class PrefixCacheSimulator {
  private entries: CacheEntry[] = [];

  constructor(private readonly rules: PrefixCacheRules = DEFAULT_CACHE_RULES) {
    if (rules.granularity < 1 || rules.minimumTokens < 0 || rules.ttlSeconds <= 0 || rules.maxEntries < 1) {
      throw new FoldError('SETTINGS.INVALID', `prefix cache rules are impossible: ${JSON.stringify(rules)}`);
    }
  }

  /** Forget every entry: the next prompt finds the cache cold, whatever its age. */
  expireAll(): void {
    this.entries = [];
  }

  /**
   * The provider holds exactly the first `tokens` tokens of every entry at `nowSeconds`: what a
   * replayed recording's provider still served at a request where it had lost the rest. What
   * it served it held, however long since the entry was used, so the kept prefixes count as
   * used now. 0 is `expireAll`.
   */
  keepPrefix(tokens: number, nowSeconds: number): void {
    if (tokens <= 0) {
      this.expireAll();
      return;
    }
    for (const entry of this.entries) {
      entry.reach = Math.min(entry.reach, tokens);
      entry.lastUsed = Math.max(entry.lastUsed, nowSeconds);
    }
  }

  /** Bill a prompt sent at simulated time `nowSeconds`, then cache it for `ttlSeconds` without a hit. */
  bill(prompt: readonly PromptMessage[], nowSeconds: number, ttlSeconds: number = this.rules.ttlSeconds): CacheBill {
    this.entries = this.entries.filter((entry) => nowSeconds - entry.lastUsed <= entry.ttlSeconds);
    let promptTokens = 0;
    for (const message of prompt) promptTokens += message.tokens.length;
    let best = 0;
    let bestEntry: CacheEntry | undefined;
    for (const entry of this.entries) {
      const shared = Math.min(entry.reach, sharedPrefixTokens(entry.prompt, prompt));
      if (shared > best) {
        best = shared;
        bestEntry = entry;
      }
    }
    const cacheRead = best < this.rules.minimumTokens ? 0 : best - (best % this.rules.granularity);
    if (bestEntry !== undefined && cacheRead > 0) bestEntry.lastUsed = nowSeconds;
    this.entries.push({ prompt, lastUsed: nowSeconds, ttlSeconds, reach: Number.POSITIVE_INFINITY });
    if (this.entries.length > this.rules.maxEntries) {
      // Newest first among equals: a loss's kept prefixes count as used now, like the prompt just sent, which must stay.
      this.entries.reverse().sort((a, b) => b.lastUsed - a.lastUsed);
      this.entries.length = this.rules.maxEntries;
    }
    return { promptTokens, cacheRead, fresh: promptTokens - cacheRead };
  }
}

/** Tokens two prompts share from the start. */
export function sharedPrefixTokens(a: readonly PromptMessage[], b: readonly PromptMessage[]): number {
  let shared = 0;
  const messages = Math.min(a.length, b.length);
  for (let position = 0; position < messages; position += 1) {
    const left = a[position]!;
    const right = b[position]!;
    if (left.digest === right.digest) {
      shared += left.tokens.length;
      continue;
    }
    const tokens = Math.min(left.tokens.length, right.tokens.length);
    let inside = 0;
    while (inside < tokens && left.tokens[inside] === right.tokens[inside]) inside += 1;
    return shared + inside;
  }
  return shared;
}
