import type { ExtensionAPI, ExtensionContext } from '@mariozechner/pi-coding-agent';
import type { FoldRuntime } from '../../../core/fold-runtime.ts';

/**
 * What pi-fold reads of Pi 1.x's `cache_warming_decision` (fired before each idle refresh of
 * the provider's cache). Its shape moved across 1.x releases (`action` or `defaultAction`,
 * `ttlMs` in most), so every field is optional and checked.
 */
export interface WarmingDecision {
  readonly action?: unknown;
  readonly defaultAction?: unknown;
  readonly ttlMs?: unknown;
}

/** Subscribe to the event where the host has it; Pi 0.x's types (and bus) do not know its name. */
export function onCacheWarming(
  pi: ExtensionAPI,
  handler: (event: WarmingDecision, ctx: ExtensionContext) => Promise<void>,
): void {
  const on = pi.on as unknown as (
    event: string,
    listener: (event: WarmingDecision, ctx: ExtensionContext) => Promise<undefined>,
  ) => void;
  on.call(pi, 'cache_warming_decision', async (event, ctx) => {
    await handler(event, ctx);
    // No opinion: Pi's own policy (or another extension's) decides whether to warm.
    return undefined;
  });
}

/**
 * A decision to warm means a refresh that reads the whole cached prompt is about to go out:
 * the cache stays warm from now on, for the lifetime Pi states, so no cold-cache commit fires
 * on the next request (docs/behaviour.md B3.3). A decision to stop changes nothing: the cache simply ages.
 * The refresh could still fail; then a free commit is missed, never a paid one made.
 */
export function noteWarmingDecision(runtime: FoldRuntime, event: WarmingDecision, now: number): void {
  const action = event.action ?? event.defaultAction;
  if (action !== 'warm') return;
  const ttl =
    typeof event.ttlMs === 'number' && Number.isFinite(event.ttlMs) && event.ttlMs > 0 ? event.ttlMs : undefined;
  runtime.noteCacheWarmed(now, ttl);
}
