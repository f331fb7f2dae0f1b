import type { RequestUsage } from '../../ports/cost-model.port.ts';
import type { UsageTelemetry } from '../../ports/engine-telemetry.ts';
import type { LedgerRow } from '../../ports/ledger-row.ts';

/** What a provider's report updates: the newest ledger row, the cache-miss counter, calibration, telemetry. */
export interface UsageTarget {
  readonly ledger: readonly LedgerRow[];
  readonly memory: { countProviderCacheMiss(): void };
  readonly estimator: { recordProviderCount(chars: number, promptTokens: number): void };
  /** The context of the request the usage is for: its overhead is part of what the provider counted. */
  readonly lastContext: { readonly overheadChars?: number };
  readonly telemetry: { measured(request: number, promptTokens: number, cacheRead: number): void };
  readonly outbound: { usage(event: UsageTelemetry): void };
  /** The scheduler's cache clock, which learns from each answer how long the cache lives. */
  readonly cacheClock: { providerAnswered(outcome: 'read' | 'lost' | 'unclear'): void };
}

/** Below this share of the previous prompt read from cache, a pure append counts as a provider-side miss. */
const CACHE_MISS_SHARE = 0.9;
/** Slack for providers that cache in blocks (the last partial block is never read back). */
const CACHE_MISS_SLACK_TOKENS = 1024;

/** Below this many tokens a provider may cache nothing at all, so a read of nothing says nothing. */
const CACHEABLE_PROMPT_TOKENS = 2048;

/**
 * What an answer says of the cache. Only a pure append of a cacheable prompt speaks: a read
 * means the cache was alive, nothing read means it was gone. A rewrite says neither: what a
 * provider reads of a rewritten window depends on where it placed its cache points (a
 * provider that caches only at explicit points reads nothing of a short system prompt), and
 * counting such answers as losses would teach the scheduler to rewrite more, then count more.
 */
function cacheOutcome(
  cacheRead: number,
  pureAppend: boolean,
  previousPromptTokens: number | undefined,
): 'read' | 'lost' | 'unclear' {
  if (!pureAppend || previousPromptTokens === undefined || previousPromptTokens < CACHEABLE_PROMPT_TOKENS)
    return 'unclear';
  return cacheRead > 0 ? 'read' : 'lost';
}

/**
 * What the provider reported for each request. Its prompt count anchors occupancy (the
 * estimator learns chars per token from it), completes the commit's telemetry, and a pure
 * append that was not read from cache is counted as a provider-side cache miss.
 */
export class ProviderUsage {
  /** The provider's prompt tokens (input + cache read + cache write) for the last reported request. */
  lastPromptTokens: number | undefined;
  private readonly reported = new Set<number>();

  /** Usage for the session's newest ledger row; a second report for the same request is ignored. */
  record(session: UsageTarget, usage: RequestUsage): void {
    const row = session.ledger[session.ledger.length - 1];
    if (row === undefined || this.reported.has(row.request)) return;
    this.reported.add(row.request);
    const promptTokens = usage.input + usage.cacheRead + usage.cacheWrite;
    row.providerCacheRead = usage.cacheRead;
    const pureAppend = row.causes.length === 0;
    if (
      pureAppend &&
      this.lastPromptTokens !== undefined &&
      usage.cacheRead < CACHE_MISS_SHARE * this.lastPromptTokens - CACHE_MISS_SLACK_TOKENS
    ) {
      session.memory.countProviderCacheMiss();
    }
    session.cacheClock.providerAnswered(cacheOutcome(usage.cacheRead, pureAppend, this.lastPromptTokens));
    this.lastPromptTokens = promptTokens;
    session.estimator.recordProviderCount(row.totalChars + (session.lastContext.overheadChars ?? 0), promptTokens);
    session.telemetry.measured(row.request, promptTokens, usage.cacheRead);
    session.outbound.usage({
      request: row.request,
      ...usage,
      estimatedTokens: row.estimatedTokens,
      budgetTokens: row.budgetTokens,
    });
  }
}
