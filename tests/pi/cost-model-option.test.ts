import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { registerPiFold } from '../../adapters/hosts/pi/register-pi-fold.ts';
import { createFolding } from '../../adapters/hosts/vercel-ai/create-folding.ts';
import { FoldError } from '../../core/fold-error.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { DEFAULT_PRICE_LIST } from '../../core/pricing/price-lists.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';
import { openScriptedPi, type RecordedRequest, type ScriptedReply, settle } from '../../testing/pi/scripted-pi.ts';

const SETTINGS = '/nonexistent/pi-fold/settings.json';
const REQUESTS = 20;
/** The request after the idle gap: marks stand by then, and no cost or fence trigger has fired yet. */
const AFTER_GAP = 12;
/** An idle gap longer than the host's list says its cache lives (60 s), shorter than the default list's (300 s). */
const GAP_MS = 120_000;

/** A host's own price list: the default rates, with a cache that lives one minute. */
const SHORT_CACHE: PriceList = { ...DEFAULT_PRICE_LIST, name: 'host-one-minute-cache', cacheLifetimeSeconds: 60 };

afterEach(() => vi.restoreAllMocks());

/**
 * One long Pi turn of 12 KB reads through a real AgentSession, the host's clock running 10 s
 * per request plus GAP_MS after the answer to request AFTER_GAP − 1.
 */
async function turnWithGap(fold: Parameters<typeof openScriptedPi>[0]['fold']) {
  let now = Date.UTC(2026, 11, 1, 9);
  vi.spyOn(Date, 'now').mockImplementation(() => now);
  const script = (request: RecordedRequest): ScriptedReply => {
    now += 10_000 + (request.index === AFTER_GAP - 1 ? GAP_MS : 0);
    if (request.index >= REQUESTS - 1) return { kind: 'text', text: 'done' };
    return { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 12_000 } }] };
  };
  const pi = await openScriptedPi({ script, fold });
  await pi.session.prompt('Read blobs.');
  await settle(pi.session);
  return pi;
}

describe('pi: the costModel option is what the scheduler decides with', () => {
  it("a host's price list reaches the commit scheduler: its one-minute cache makes a two-minute gap cold (docs/behaviour.md B3.3), the default list's five minutes do not", async () => {
    const byDefault = await turnWithGap({ foldStore: new MemoryFoldStore(), settingsPath: SETTINGS });
    expect(byDefault.errors).toEqual([]);
    expect(byDefault.ledger[AFTER_GAP]!.foldsLanded).toBe(0);
    byDefault.session.dispose();

    const costModel = createCharsCostModel({ priceList: SHORT_CACHE });
    const withHostPrices = await turnWithGap({ foldStore: new MemoryFoldStore(), settingsPath: SETTINGS, costModel });
    expect(withHostPrices.errors).toEqual([]);
    const row = withHostPrices.ledger[AFTER_GAP]!;
    expect(row.foldsLanded).toBeGreaterThan(0);
    expect(row.causes).toContain('commit');
    const folding = await withHostPrices.registration.sessions.existing(withHostPrices.sessionManager.getSessionId());
    expect(folding!.runtime.view.scheduler.lastReason).toBe('cold-idle');
    withHostPrices.session.dispose();
  }, 90_000);

  it('refuses a bad cost model at registration with SETTINGS.INVALID naming the field, before any hook is installed', () => {
    const handlers: string[] = [];
    const pi = {
      on: (event: string) => handlers.push(event),
      registerTool: () => undefined,
      registerCommand: () => undefined,
      getAllTools: () => [],
      getActiveTools: () => [],
    } as unknown as ExtensionAPI;
    const refusal = (costModel: unknown): FoldError => {
      try {
        registerPiFold(pi, { costModel: costModel as never });
      } catch (error) {
        if (FoldError.isInstance(error)) return error;
        throw error;
      }
      throw new Error('accepted');
    };
    const good = createCharsCostModel({ priceList: SHORT_CACHE });
    const cases: [unknown, string, RegExp][] = [
      ['cheap', 'costModel', /costModel must be a CostModel object .*got the string "cheap"/],
      [{ ...good, specificationVersion: 'v2' }, 'costModel.specificationVersion', /specificationVersion must be 'v1'/],
      [{ ...good, price: 3 }, 'costModel.price', /costModel.price must be a function, got number 3/],
      [
        { ...good, priceList: { ...SHORT_CACHE, base: { ...SHORT_CACHE.base, cacheRead: -1 } } },
        'costModel.priceList.base.cacheRead',
        /priceList.base.cacheRead must be a finite number .* at least 0, got number -1/,
      ],
      [
        { ...good, priceList: { ...SHORT_CACHE, base: { input: 1, output: 2 } } },
        'costModel.priceList.base.cacheRead',
        /cacheRead .* got undefined/,
      ],
      [
        { ...good, priceList: { ...SHORT_CACHE, cacheLifetimeSeconds: 0 } },
        'costModel.priceList.cacheLifetimeSeconds',
        /cacheLifetimeSeconds.*above 0, got number 0/,
      ],
      [
        { ...good, priceList: { ...SHORT_CACHE, longContext: { aboveTokens: 1.5, rates: SHORT_CACHE.base } } },
        'costModel.priceList.longContext.aboveTokens',
        /aboveTokens must be a whole number/,
      ],
      [{ ...good, defaultCharsPerToken: 0 }, 'costModel.defaultCharsPerToken', /between 1 and 16, got number 0/],
    ];
    for (const [costModel, field, message] of cases) {
      const error = refusal(costModel);
      expect(error.code).toBe('SETTINGS.INVALID');
      expect(error.details.option).toBe(field);
      expect(error.message).toMatch(/^SETTINGS.INVALID: registerPiFold: /);
      expect(error.message).toMatch(message);
    }
    expect(handlers).toEqual([]);
    expect(() => registerPiFold(pi, { costModel: good })).not.toThrow();
  });

  it('the AI SDK adapter refuses the same bad cost model by the same field (parity)', async () => {
    const costModel = {
      ...createCharsCostModel(),
      priceList: { ...SHORT_CACHE, base: { ...SHORT_CACHE.base, output: Number.NaN } },
    };
    await expect(
      createFolding({ sessionId: 'parity', store: 'memory', contextWindow: 100_000, costModel }),
    ).rejects.toMatchObject({
      code: 'SETTINGS.INVALID',
      details: { option: 'costModel.priceList.base.output' },
    });
  });
});
