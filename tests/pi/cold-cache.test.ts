import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { noteWarmingDecision } from '../../adapters/hosts/pi/cache-warming.ts';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import { DEFAULT_PRICE_LIST } from '../../core/pricing/price-lists.ts';
import {
  openScriptedPi,
  type RecordedRequest,
  type ScriptedPi,
  type ScriptedReply,
  settle,
} from '../../testing/pi/scripted-pi.ts';

const SETTINGS = '/nonexistent/pi-fold/settings.json';
const REQUESTS = 20;
/** The request whose projection follows the idle gap: marks stand by then, the cost trigger has not fired. */
const AFTER_GAP = 12;
/** The scripted model (`s1`) has no list of its own: the default list's lifetime applies. */
const LIFETIME_MS = DEFAULT_PRICE_LIST.cacheLifetimeSeconds! * 1000;

afterEach(() => vi.restoreAllMocks());

/**
 * One long Pi turn of 12 KB reads (under the spill threshold) through a real AgentSession; the host's clock (Date.now,
 * which the Pi adapter passes as `requestTime`) runs 10 s per request, plus `gapMs` after the
 * model's answer to request AFTER_GAP − 1, as if the person left. `beforeGap` runs at that moment.
 */
async function runTurn(gapMs: number, beforeGap?: (runtime: FoldRuntime, at: number) => void) {
  let now = Date.UTC(2026, 11, 1, 9);
  vi.spyOn(Date, 'now').mockImplementation(() => now);
  let pi: ScriptedPi | undefined;
  let runtime: FoldRuntime | undefined;
  const script = (request: RecordedRequest): ScriptedReply => {
    now += 10_000;
    // The session's runtime, as the adapter opened it for the first request.
    if (request.index === 0)
      void pi!.registration.sessions
        .existing(pi!.sessionManager.getSessionId())
        .then((folding) => (runtime = folding?.runtime));
    if (request.index === AFTER_GAP - 1) {
      now += gapMs;
      beforeGap?.(runtime!, now - gapMs / 2);
    }
    if (request.index >= REQUESTS - 1) return { kind: 'text', text: 'done' };
    return { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 12_000 } }] };
  };
  pi = await openScriptedPi({ script, fold: { foldStore: new MemoryFoldStore(), settingsPath: SETTINGS } });
  await pi.session.prompt('Read blobs.');
  await settle(pi.session);
  return pi;
}

describe('pi: B3.3 a cold cache lands due marks', () => {
  it('after an idle gap past the cache lifetime the next request commits; without the gap it does not', async () => {
    const warm = await runTurn(0);
    const row = warm.ledger[AFTER_GAP]!;
    expect(row.foldsLanded).toBe(0);
    warm.session.dispose();

    const cold = await runTurn(LIFETIME_MS + 1_000);
    const coldRow = cold.ledger[AFTER_GAP]!;
    expect(coldRow.foldsLanded).toBeGreaterThan(0);
    expect(coldRow.causes).toContain('commit');
    expect(coldRow.estimatedTokens).toBeLessThan(coldRow.preCommitTokens);
    expect(cold.ledger.filter((ledgerRow) => ledgerRow.unattributed)).toEqual([]);
    cold.session.dispose();
  }, 60_000);

  it('a Pi 1.x cache refresh during the gap (cache_warming_decision "warm") keeps the cache warm; "stop" does not', async () => {
    const refresh = (action: 'warm' | 'stop') => (runtime: FoldRuntime, at: number) =>
      noteWarmingDecision(runtime, { action, ttlMs: LIFETIME_MS }, at);
    const warmed = await runTurn(LIFETIME_MS + 1_000, refresh('warm'));
    expect(warmed.ledger[AFTER_GAP]!.foldsLanded).toBe(0);
    warmed.session.dispose();
    const stopped = await runTurn(LIFETIME_MS + 1_000, refresh('stop'));
    expect(stopped.ledger[AFTER_GAP]!.foldsLanded).toBeGreaterThan(0);
    stopped.session.dispose();
  }, 60_000);
});
