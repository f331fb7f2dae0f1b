import { describe, expect, it } from 'vitest';
import { loadModelCatalog } from '../../adapters/backends/pi-ai-catalog/index.ts';
import { priceRequest } from '../../core/pricing/chars-cost-model.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import { FALLBACK_WINDOW, resolveReplayWindow } from '../../lab/replay/replay-window.ts';

describe("the model catalog is Pi's pi-ai registry where it is installed", () => {
  it('names the registry package and version it read', async () => {
    const { catalog, fallbackReason } = await loadModelCatalog();
    expect(fallbackReason).toBeUndefined();
    expect(catalog.source).toMatch(/^@mariozechner\/pi-ai 0\.73\.1 model registry \(\d+ models\)$/);
  });

  it('a recorded deepseek-chat replays at its real window and prices, not the lab defaults', async () => {
    const { catalog } = await loadModelCatalog();
    const window = resolveReplayWindow('deepseek-chat', {}, catalog);
    expect(window.capTokens).toBe(163_840);
    expect(window.capTokens).not.toBe(FALLBACK_WINDOW.capTokens);
    expect(window.priceList).toBe('openrouter/deepseek/deepseek-chat');
    expect(window.prices.base.input).toBeCloseTo(0.32, 6);
    // pi-ai lists no cache price for it: cached tokens are billed as input, never free.
    expect(window.prices.base.cacheRead).toBe(window.prices.base.input);
    expect(window.note).toContain('@mariozechner/pi-ai 0.73.1 model registry');
  });

  it('a dated Anthropic id finds its maker’s entry with cache read and write prices', async () => {
    const { catalog } = await loadModelCatalog();
    const found = catalog.lookup('claude-sonnet-4-5-20250929')!;
    expect(found.id).toBe('anthropic/claude-sonnet-4-5-20250929');
    expect(found.maxPromptTokens).toBe(200_000);
    expect(found.priceList.base).toMatchObject({ input: 3, cacheRead: 0.3, cacheWrite: 3.75, output: 15 });
    expect(found.priceList.cacheLifetimeSeconds).toBe(300);
    expect(found.priceList.longCacheLifetimeSeconds).toBe(3600);
  });

  it('an unknown model says so, names the catalog, and states the fallback it runs at', async () => {
    const { catalog } = await loadModelCatalog();
    expect(catalog.lookup('llama-nope-1')).toBeUndefined();
    const window = resolveReplayWindow('llama-nope-1', {}, catalog);
    expect(window).toMatchObject({
      capTokens: FALLBACK_WINDOW.capTokens,
      budgetTokens: FALLBACK_WINDOW.budgetTokens,
      priceList: FALLBACK_WINDOW.priceList,
    });
    expect(window.note).toContain('recorded model llama-nope-1 is not in the catalog (@mariozechner/pi-ai 0.73.1');
    expect(window.note).toContain("the lab's defaults (budget 272000, cap 372000, price list gpt-5.6-ledger)");
  });
});

describe('cache lifetimes bill as the provider does', () => {
  const sonnet = PRICE_LISTS['claude-sonnet-4-5']!;
  // 100k tokens: below the 200k long-context line.
  const writes = { input: 0, cacheRead: 0, output: 0, cacheWrite: 100_000 };

  it('a 1-hour write bills 2× input, a 5-minute write 1.25×', () => {
    expect(priceRequest(sonnet, writes)).toBeCloseTo(0.375, 9);
    expect(priceRequest(sonnet, { ...writes, cacheWriteLong: 100_000 })).toBeCloseTo(0.6, 9);
    expect(priceRequest(sonnet, { ...writes, cacheWriteLong: 40_000 })).toBeCloseTo(0.06 * 3.75 + 0.04 * 6, 9);
  });

  it("the registry's Anthropic entry prices a 1-hour write at 2× input too", async () => {
    const { catalog } = await loadModelCatalog();
    const opus = catalog.lookup('claude-opus-4-5')!.priceList;
    expect(priceRequest(opus, { ...writes, cacheWriteLong: 100_000 })).toBeCloseTo(1, 9);
  });
});
