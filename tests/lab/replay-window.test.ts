import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';
import { modelLimits } from '../../core/pricing/model-windows.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import { resolveReplayWindow } from '../../lab/replay/replay-window.ts';
import { loadTranscript } from '../../lab/transcripts/load-transcript.ts';
import { dominantModel } from '../../lab/transcripts/recorded-session.ts';

const fixtures = resolve(import.meta.dirname, '../fixtures/transcripts');

describe('a recorded model id finds its window and price list', () => {
  it.each([
    ['claude-sonnet-4-5-20250929', 200_000, 183_616, 'claude-sonnet-4-5'],
    ['anthropic/claude-opus-4-5', 200_000, 183_616, 'claude-opus-4-5'],
    ['claude-opus-4-1-20250805', 200_000, 183_616, 'claude-opus-4'],
    ['gpt-5.1-codex', 272_000, 255_616, 'gpt-5'],
    ['GPT-5-mini', 272_000, 255_616, 'gpt-5-mini'],
    ['openai/gpt-4o-2024-08-06', 128_000, 115_200, 'gpt-4o'],
    ['gemini-2.5-pro', 1_048_576, 1_032_192, 'gemini-2.5-pro'],
  ])('%s → cap %i, budget %i, %s', (id, cap, budget, priceList) => {
    const limits = modelLimits(id)!;
    expect(limits).toMatchObject({ capTokens: cap, budgetTokens: budget });
    expect(limits.priceList).toBe(PRICE_LISTS[priceList]);
  });

  it('an unknown id finds nothing rather than a guess', () => {
    expect(modelLimits('llama-3-70b')).toBeUndefined();
  });

  it('Anthropic lists charge a cache-write premium; OpenAI and Gemini lists do not', () => {
    expect(PRICE_LISTS['claude-sonnet-4-5']!.base.cacheWrite).toBe(1.25 * PRICE_LISTS['claude-sonnet-4-5']!.base.input);
    expect(PRICE_LISTS['gpt-5']!.base.cacheWrite).toBe(PRICE_LISTS['gpt-5']!.base.input);
    expect(PRICE_LISTS['gemini-2.5-pro']!.longContext!.aboveTokens).toBe(200_000);
  });
});

describe('the replay window: the recorded model by default, each flag overrides', () => {
  it('defaults come from the model and the note says so', () => {
    const window = resolveReplayWindow('claude-opus-4-5', {});
    expect(window).toMatchObject({ budgetTokens: 183_616, capTokens: 200_000, priceList: 'claude-opus-4-5' });
    expect(window.note).toContain('from recorded model claude-opus-4-5');
  });

  it('a cap alone brings the same reply reserve below it; a budget and a price list override', () => {
    expect(resolveReplayWindow('claude-opus-4-5', { capTokens: 128_000 })).toMatchObject({
      budgetTokens: 115_200,
      capTokens: 128_000,
    });
    const window = resolveReplayWindow('claude-opus-4-5', { budgetTokens: 120_000, priceList: 'gpt-5.6-flat' });
    expect(window).toMatchObject({ budgetTokens: 120_000, capTokens: 200_000, priceList: 'gpt-5.6-flat' });
    expect(window.note).toContain('overridden by --budget, --price-list');
  });

  it('an unknown or absent model falls back to the lab defaults and says which flags to give', () => {
    expect(resolveReplayWindow('llama-3-70b', {})).toMatchObject({
      budgetTokens: 272_000,
      capTokens: 372_000,
      priceList: 'gpt-5.6-ledger',
    });
    expect(resolveReplayWindow('llama-3-70b', {}).note).toMatch(/not in the catalog.*--cap and --price-list/);
    expect(resolveReplayWindow(undefined, {}).note).toContain('names no model');
  });

  it('a budget above the cap, or an unknown price list, is refused by name', () => {
    expect(() => resolveReplayWindow('claude-opus-4-5', { budgetTokens: 250_000 })).toThrow(
      /SETTINGS.INVALID: the budget \(250000 tokens\) is above the provider cap \(200000 tokens\)/,
    );
    expect(() => resolveReplayWindow('claude-opus-4-5', { priceList: 'nope' })).toThrow(/unknown price list "nope"/);
  });
});

describe('the shared transcripts record their models', () => {
  it.each([
    ['pi-mono/before-compaction.jsonl', 'claude-opus-4-5'],
    ['pi-mono/large-session.jsonl', 'claude-sonnet-4-5'],
    ['claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl', 'claude-sonnet-4-5-20250929'],
    ['claude-code/c7d2069e-c561-4759-8adf-b0745be78c29.jsonl', 'claude-sonnet-4-5-20250929'],
  ])('%s: %s, whose window is 200k', async (file, model) => {
    const session = await loadTranscript(`${fixtures}/${file}`);
    expect(dominantModel(session.responses)).toBe(model);
    expect(resolveReplayWindow(model, {})).toMatchObject({ budgetTokens: 183_616, capTokens: 200_000 });
  });

  it('the CLI replays at that window by default and prices with the model list', { timeout: 60_000 }, async () => {
    const out: string[] = [];
    const code = await runCli(
      ['replay', `${fixtures}/pi-mono/before-compaction.jsonl`, '--arms', 'native', '--max-requests', '3'],
      { out: (line) => out.push(line), error: () => {} },
    );
    expect(code).toBe(0);
    const printed = out.join('\n');
    expect(printed).toContain('price list anthropic/claude-opus-4-5 · budget 183,616 · provider cap 200,000');
    expect(printed).toMatch(/\$[\d.]+ at anthropic\/claude-opus-4-5/);
    expect(printed).toMatch(/note: catalog: @mariozechner\/pi-ai 0\.73\.1 model registry/);
  });
});
