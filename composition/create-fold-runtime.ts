import 'reflect-metadata';
import { container as rootContainer, type DependencyContainer } from 'tsyringe';
import { createCharsCostModel } from '../core/chars-cost-model.ts';
import { FoldError } from '../core/fold-error.ts';
import { FoldRuntime } from '../core/fold-runtime.ts';
import { resolveSettings } from '../core/settings.ts';
import type { CostModel } from '../ports/cost-model.port.ts';
import type { EvidenceStore } from '../ports/evidence-store.port.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import type { ProjectionSink } from '../ports/projection-sink.port.ts';
import { assertKnownOptions, assertSessionIdOption, assertStoreLocation, RUNTIME_OPTION_KEYS } from './option-checks.ts';
import { createMatchingEvidenceStore, createNamedFoldStore, withStoreCaps, type StoreSelectionOptions } from './store-selection.ts';
import { COST_MODEL, EVIDENCE_STORE, FOLD_SETTINGS, FOLD_STORE, PROJECTION_SINK, SESSION_ID } from './tokens.ts';

/** Everything a host chooses when it builds a runtime. Only `sessionId` is required. */
export interface FoldRuntimeOptions extends StoreSelectionOptions {
  readonly sessionId: string;
  /** User settings (validated; unknown and deleted names refused). */
  readonly settings?: Record<string, unknown>;
  /** Where evidence lives. @default the chosen store's directory or file (`'fs'`/`'sqlite'`), else memory */
  readonly evidenceStore?: EvidenceStore;
  readonly costModel?: CostModel;
  readonly projectionSink?: ProjectionSink;
  /** A container to derive the session's child container from (e.g. one a host shares). */
  readonly container?: DependencyContainer;
}

/** A built runtime with the child container that wired it. */
export interface ComposedRuntime {
  readonly runtime: FoldRuntime;
  readonly container: DependencyContainer;
  /** Dispose the runtime and every adapter the container created. */
  dispose(): Promise<void>;
}

/**
 * The composition root: the only place that knows tsyringe. Each session gets its own
 * child container, so two sessions never share mutable adapters by accident, and nothing
 * is registered globally as a side effect of importing the library.
 */
export async function createFoldRuntime(options: FoldRuntimeOptions): Promise<ComposedRuntime> {
  if (typeof options !== 'object' || options === null) throw new FoldError('SETTINGS.INVALID', 'createFoldRuntime needs an options object with a sessionId');
  assertKnownOptions(options, RUNTIME_OPTION_KEYS, 'createFoldRuntime');
  assertSessionIdOption(options.sessionId, 'createFoldRuntime');
  assertStoreLocation(options, 'createFoldRuntime');
  const settings = resolveSettings(options.settings ?? {});
  const child = (options.container ?? rootContainer).createChildContainer();
  child.register(SESSION_ID, { useValue: options.sessionId });
  child.register(FOLD_SETTINGS, { useValue: settings });
  // A named store is built here and therefore closed here; an instance belongs to the caller.
  const namedStore = await createNamedFoldStore(options);
  let cappedStore: FoldStore;
  try {
    cappedStore = withStoreCaps(namedStore ?? (options.store as FoldStore), options.sessionId, options);
  } catch (error) {
    await namedStore?.dispose?.();
    throw error;
  }
  child.register(FOLD_STORE, { useValue: cappedStore });
  child.register(EVIDENCE_STORE, { useValue: options.evidenceStore ?? (await createMatchingEvidenceStore(options)) });
  child.register(COST_MODEL, { useValue: options.costModel ?? createCharsCostModel() });
  if (options.projectionSink !== undefined) child.register(PROJECTION_SINK, { useValue: options.projectionSink });
  const foldStore = child.resolve(FOLD_STORE);
  const evidenceStore = child.resolve(EVIDENCE_STORE);
  const releaseBuiltStores = async () => {
    // Stores passed in by the caller belong to the caller; only what we built is closed here.
    if (namedStore !== undefined) await foldStore.dispose?.();
    if (options.evidenceStore === undefined) await evidenceStore.dispose?.();
  };
  let runtime: FoldRuntime;
  try {
    runtime = await FoldRuntime.open({
      sessionId: child.resolve(SESSION_ID),
      settings: child.resolve(FOLD_SETTINGS),
      foldStore,
      evidenceStore,
      costModel: child.resolve(COST_MODEL),
      ...(child.isRegistered(PROJECTION_SINK) ? { projectionSink: child.resolve(PROJECTION_SINK) } : {}),
    });
  } catch (error) {
    await releaseBuiltStores();
    throw error;
  }
  let disposed = false;
  return {
    runtime,
    container: child,
    async dispose() {
      if (disposed) return;
      disposed = true;
      await runtime.dispose();
      await releaseBuiltStores();
    },
  };
}
