import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { type PiFoldOptions, PiSessionRegistry, registerPiFold } from '../../adapters/hosts/pi/index.ts';
import { createFolding, type FoldingOptions } from '../../adapters/hosts/vercel-ai/index.ts';
import { createFoldRuntime, createStoreScope, type FoldRuntimeOptions } from '../../composition/index.ts';
import type { RUNTIME_OPTION_KEYS } from '../../composition/option-checks.ts';
import { FoldError, type FoldSettingsInput } from '../../core/index.ts';

// Type-level checks first: `tsc --noEmit` (the test run's first step) compiles this file, and every
// `@ts-expect-error` below must meet an error, or tsc fails with "Unused '@ts-expect-error'". So if
// an option type widens back to `Record<string, unknown>`, excess-property checking is lost and
// the type check fails here. The run-time half proves the same calls from JavaScript are refused
// with the codes they always had.

/** The FoldError a call rejects with (fails the test if it resolves). */
async function refusal(call: () => Promise<unknown>): Promise<FoldError> {
  try {
    await call();
  } catch (error) {
    if (FoldError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('the call was accepted');
}

describe('options and settings are typed objects a user can name', () => {
  it('the three entry points take the exported option types, with settings typed as FoldSettingsInput', () => {
    expectTypeOf(createFoldRuntime).parameter(0).toEqualTypeOf<FoldRuntimeOptions>();
    expectTypeOf(createFolding).parameter(0).toEqualTypeOf<FoldingOptions>();
    expectTypeOf(registerPiFold).parameter(1).toEqualTypeOf<PiFoldOptions | undefined>();
    expectTypeOf<FoldRuntimeOptions['settings']>().toEqualTypeOf<FoldSettingsInput | undefined>();
    expectTypeOf<FoldingOptions['settings']>().toEqualTypeOf<FoldSettingsInput | undefined>();
    expectTypeOf<PiFoldOptions['settings']>().toEqualTypeOf<FoldSettingsInput | undefined>();
    expectTypeOf<FoldSettingsInput['scheduling']>().toEqualTypeOf<
      'cost' | 'band' | 'immediate' | 'eager' | undefined
    >();
    // The run-time list of options createFoldRuntime accepts is exactly the type's keys.
    expectTypeOf<(typeof RUNTIME_OPTION_KEYS)[number]>().toEqualTypeOf<keyof FoldRuntimeOptions>();
  });

  it('createFoldRuntime: a misspelt setting, a removed setting and a misspelt option are type errors and SETTINGS errors at run time', async () => {
    const misspelt = await refusal(() =>
      createFoldRuntime({
        sessionId: 'typed-a',
        store: 'memory',
        // @ts-expect-error `maxTarget` belongs inside `thresholds`
        settings: { maxTarget: 0.7 },
      }),
    );
    expect(misspelt.code).toBe('SETTINGS.UNKNOWN_OPTION');
    expect(misspelt.details.option).toBe('maxTarget');

    const removed = await refusal(() =>
      // @ts-expect-error `summarizer` was removed; FoldSettingsInput does not name it
      createFoldRuntime({ sessionId: 'typed-b', store: 'memory', settings: { summarizer: 'gpt' } }),
    );
    expect(removed.code).toBe('SETTINGS.DELETED_OPTION');

    // @ts-expect-error `stor` is not an option (the run-time check suggests `store`)
    const option = await refusal(() => createFoldRuntime({ sessionId: 'typed-c', stor: 'memory' }));
    expect(option.code).toBe('SETTINGS.UNKNOWN_OPTION');
    expect(option.details.suggestion).toBe('store');
  });

  it('the removed container option, and the removed container members, name their replacement', async () => {
    const scope = await createStoreScope({ store: 'memory' });
    const runtimeOption = await refusal(() =>
      // @ts-expect-error `container` was replaced by `scope`
      createFoldRuntime({ sessionId: 'typed-h', store: 'memory', container: {} }),
    );
    expect(runtimeOption.code).toBe('SETTINGS.DELETED_OPTION');
    expect(runtimeOption.details).toEqual({ option: 'container', replacement: 'scope' });
    expect(runtimeOption.message).toMatch(/createFoldRuntime: container was removed: pass a store scope instead/);
    const foldingOption = await refusal(() =>
      // @ts-expect-error `container` was replaced by `scope`
      createFolding({ sessionId: 'typed-i', store: 'memory', contextWindow: 200_000, container: {} }),
    );
    expect(foldingOption.code).toBe('SETTINGS.DELETED_OPTION');
    expect(foldingOption.details.replacement).toBe('scope');

    // JavaScript hosts reading what a scope or a runtime used to carry are told where it went.
    expect(() => (scope as unknown as { container: unknown }).container).toThrow(
      /SETTINGS.DELETED_OPTION: StoreScope.container was removed: pass the scope itself/,
    );
    const composed = await createFoldRuntime({ sessionId: 'typed-j', scope });
    expect(() => (composed as unknown as { container: unknown }).container).toThrow(
      /SETTINGS.DELETED_OPTION: ComposedRuntime.container was removed: read the instances from ComposedRuntime.ports/,
    );
    expect(Object.keys(composed)).not.toContain('container');
    await composed.dispose();

    // Only a scope createStoreScope made is one.
    const forged = await refusal(() =>
      createFoldRuntime({ sessionId: 'typed-k', scope: { dispose: async () => undefined } }),
    );
    expect(forged.code).toBe('SETTINGS.INVALID');
    expect(forged.details.option).toBe('scope');
    await scope.dispose();
  });

  it('createFolding: the same checks, and a scheduling name outside the union', async () => {
    const misspelt = await refusal(() =>
      createFolding({
        sessionId: 'typed-d',
        store: 'memory',
        // @ts-expect-error `contextWindw` is not an option
        contextWindw: 200_000,
      }),
    );
    expect(misspelt.code).toBe('SETTINGS.UNKNOWN_OPTION');
    expect(misspelt.details.suggestion).toBe('contextWindow');

    const renamed = await refusal(() =>
      createFolding({
        sessionId: 'typed-e',
        store: 'memory',
        contextWindow: 200_000,
        // @ts-expect-error "epoch" is not a SchedulingMode (it was split into "cost" and "band")
        settings: { scheduling: 'epoch' },
      }),
    );
    expect(renamed.code).toBe('SETTINGS.DELETED_OPTION');

    const setting = await refusal(() =>
      // @ts-expect-error `toolname` is not a setting (`toolName` is)
      createFolding({ sessionId: 'typed-f', store: 'memory', contextWindow: 200_000, settings: { toolname: 'fold' } }),
    );
    expect(setting.code).toBe('SETTINGS.UNKNOWN_OPTION');
  });

  it('registerPiFold: its options refuse a misspelt setting, in the types and when a real Pi session opens', async () => {
    const settingsPath = join(mkdtempSync(join(tmpdir(), 'pi-fold-typed-')), 'absent-settings.json');
    const options: PiFoldOptions = {
      settingsPath,
      // @ts-expect-error `blacklistAutoFoldTool` misses its final s
      settings: { blacklistAutoFoldTool: ['bash'] },
    };
    const sessions = new PiSessionRegistry(options);
    const error = await refusal(() => sessions.forSession(SessionManager.inMemory()));
    expect(error.code).toBe('SETTINGS.UNKNOWN_OPTION');
    expect(error.details.option).toBe('blacklistAutoFoldTool');
  });

  it('a well-typed settings object is accepted as written, every member optional', async () => {
    const settings: FoldSettingsInput = {
      providerInputBudget: { 'gpt-5.6': 272_000, '*': 150_000 },
      blacklistAutoFoldTools: ['bash'],
      scheduling: 'band',
      rawFloorTokens: 0,
      toolName: 'fold',
      spill: { thresholdBytes: 16_384, keepBytes: 4_096 },
    };
    const { runtime, dispose } = await createFoldRuntime({ sessionId: 'typed-g', store: 'memory', settings });
    expect(runtime.view.settings.scheduling).toBe('band');
    expect(runtime.view.settings.modelInputBudgets.get('gpt-5.6')).toBe(272_000);
    await dispose();
  });
});
