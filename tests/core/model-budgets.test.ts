import { describe, expect, it } from 'vitest';
import { FoldError } from '../../core/fold-error.ts';
import { budgetForModel, resolveSettings } from '../../core/settings/settings.ts';
import type { LedgerRow } from '../../ports/ledger-row.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { openRuntime, providerTokens } from '../support/drive-session.ts';

describe('providerInputBudget keyed by model id', () => {
  it('resolves provider/id, then the bare id, then "*", then nothing', () => {
    const settings = resolveSettings({
      providerInputBudget: { 'big-model': 200_000, 'acme/small-model': 40_000, 'small-model': 50_000, '*': 90_000 },
    });
    expect(budgetForModel(settings, { id: 'big-model' })).toBe(200_000);
    expect(budgetForModel(settings, { id: 'small-model', provider: 'acme' })).toBe(40_000);
    expect(budgetForModel(settings, { id: 'small-model', provider: 'other' })).toBe(50_000);
    expect(budgetForModel(settings, { id: 'tiny-model', provider: 'acme' })).toBe(90_000);
    expect(budgetForModel(settings, undefined)).toBe(90_000);
    expect(
      budgetForModel(resolveSettings({ providerInputBudget: { 'big-model': 200_000 } }), { id: 'unknown' }),
    ).toBeUndefined();
    expect(budgetForModel(resolveSettings({ providerInputBudget: 70_000 }), { id: 'anything' })).toBe(70_000);
  });

  it.each([
    [{}, 'names no model'],
    [[100_000], 'by model id'],
    [{ m: 10 }, 'providerInputBudget["m"] must be an integer of at least 1000'],
    [{ m: '100000' }, 'providerInputBudget["m"]'],
    [{ '': 100_000 }, 'model ids of 1-200 chars'],
  ])('refuses %j naming the problem', (budget, message) => {
    let error: unknown;
    try {
      resolveSettings({ providerInputBudget: budget });
    } catch (caught) {
      error = caught;
    }
    expect(FoldError.isInstance(error) && error.code).toBe('SETTINGS.INVALID');
    expect((error as Error).message).toContain(message);
  });

  it('a table that does not name the model, with no window to fall back on, is refused by name', async () => {
    const { runtime } = await openRuntime({
      settings: { providerInputBudget: { large: 80_000, 'acme/small': 30_000 } },
    });
    const session = new SyntheticSession({ seed: 3, resultChars: [3000, 9000] });
    session.step();
    let error: unknown;
    try {
      await runtime.project(session.entries, { model: { id: 'other', provider: 'acme' } });
    } catch (caught) {
      error = caught;
    }
    expect(FoldError.isInstance(error) && error.code).toBe('SETTINGS.INVALID');
    expect((error as Error).message).toContain(
      'no serving budget for model "acme/other": providerInputBudget names only "large", "acme/small"',
    );
    expect(runtime.view.ledger).toHaveLength(0);
    // With the host's window it falls back to the window, as a single budget would.
    const row = (await runtime.project(session.entries, { model: { id: 'other' }, contextWindow: 100_000 })).ledger;
    expect(row.budgetTokens).toBe(100_000 - 10_000);
  });

  it('a window the host reports anew moves the budget at once, for the same model and for none', async () => {
    const { runtime } = await openRuntime({ settings: { providerInputBudget: undefined } });
    const session = new SyntheticSession({ seed: 5, resultChars: [3000, 9000] });
    const budgets: number[] = [];
    for (const [model, contextWindow] of [
      [{ id: 'm' }, 200_000],
      [{ id: 'm' }, 200_000],
      [{ id: 'm' }, 120_000],
      [undefined, 120_000],
      [undefined, 64_000],
      [{ id: 'm', provider: 'p' }, 64_000],
    ] as const) {
      session.step();
      budgets.push(
        (await runtime.project(session.entries, { ...(model === undefined ? {} : { model }), contextWindow })).ledger
          .budgetTokens,
      );
    }
    expect(budgets).toEqual([
      200_000 - 16_384,
      200_000 - 16_384,
      120_000 - 12_000,
      120_000 - 12_000,
      64_000 - 6_400,
      64_000 - 6_400,
    ]);
  });

  it("a model switch mid-session moves the budget: the next request is served under the new model's budget", async () => {
    const { runtime } = await openRuntime({ settings: { providerInputBudget: { large: 80_000, small: 30_000 } } });
    const session = new SyntheticSession({ seed: 9, resultChars: [3000, 9000] });
    let row: LedgerRow | undefined;
    for (let step = 0; step < 40; step += 1) {
      session.step();
      row = (await runtime.project(session.entries, { model: { id: 'large' } })).ledger;
      runtime.recordUsage({ input: providerTokens(row.totalChars), cacheRead: 0, cacheWrite: 0, output: 100 });
      expect(row.budgetTokens).toBe(80_000);
    }
    expect(row!.estimatedTokens).toBeGreaterThan(30_000 * runtime.view.settings.thresholds.maxTarget);
    session.step();
    const switched = (await runtime.project(session.entries, { model: { id: 'small' } })).ledger;
    expect(switched.budgetTokens).toBe(30_000);
    expect(switched.foldsLanded).toBeGreaterThan(0);
    expect(switched.estimatedTokens).toBeLessThanOrEqual(30_000 * runtime.view.settings.thresholds.maxTarget);
    expect(switched.causes).toContain('commit');
  });
});
