import type { RequestUsage } from '../ports/cost-model.port.ts';
import type { FoldRuntime } from './fold-runtime.ts';

/** Below this share of the previous prompt read from cache, a pure append counts as a provider-side miss. */
const CACHE_MISS_SHARE = 0.9;
/** Slack for providers that cache in blocks (the last partial block is never read back). */
const CACHE_MISS_SLACK_TOKENS = 1024;

/**
 * What the provider reported for each request. Its prompt count anchors occupancy (the
 * estimator learns chars per token from it), completes the commit's telemetry, and a pure
 * append that was not read from cache is counted as a provider-side cache miss.
 */
export class ProviderUsage {
  /** The provider's prompt tokens (input + cache read + cache write) for the last reported request. */
  lastPromptTokens: number | undefined;
  private readonly reported = new Set<number>();

  /** Usage for the runtime's newest ledger row; a second report for the same request is ignored. */
  record(runtime: FoldRuntime, usage: RequestUsage): void {
    const row = runtime.ledger[runtime.ledger.length - 1];
    if (row === undefined || this.reported.has(row.request)) return;
    this.reported.add(row.request);
    const promptTokens = usage.input + usage.cacheRead + usage.cacheWrite;
    row.providerCacheRead = usage.cacheRead;
    const pureAppend = row.causes.length === 0;
    if (pureAppend && this.lastPromptTokens !== undefined && usage.cacheRead < CACHE_MISS_SHARE * this.lastPromptTokens - CACHE_MISS_SLACK_TOKENS) {
      runtime.memory.counters.providerCacheMisses += 1;
    }
    this.lastPromptTokens = promptTokens;
    runtime.estimator.recordProviderCount(row.totalChars, promptTokens);
    runtime.telemetry.measured(row.request, promptTokens, usage.cacheRead);
    runtime.dependencies.projectionSink?.acceptUsage?.({ request: row.request, ...usage, estimatedTokens: row.estimatedTokens, budgetTokens: row.budgetTokens });
  }
}
