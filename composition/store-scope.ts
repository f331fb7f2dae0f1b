import { type DependencyContainer, container as rootContainer } from 'tsyringe';
import { FoldError } from '../core/fold-error.ts';
import { assertStoreLocation } from './option-checks.ts';
import { registerStoreFactories, storeBuilderOf } from './store-factories.ts';
import { type StoreKind, type StoreSelectionOptions, selectedStoreKind } from './store-selection.ts';

/** A built-in store chosen once and shared by every session opened in it. */
export interface StoreScopeOptions
  extends Pick<StoreSelectionOptions, 'storeRoot' | 'sqlitePath' | 'evidenceCapBytes'> {
  readonly store: StoreKind;
}

/** A container that owns one fold store and its evidence store, for many sessions. */
export interface StoreScope {
  /** Pass as `container` to `createFoldRuntime`: sessions that name no store of their own use this one. */
  readonly container: DependencyContainer;
  /** Close the stores the scope built (after its sessions are closed). */
  dispose(): Promise<void>;
}

/**
 * A parent container for sessions that share one store: the stores are built from the same
 * defaults `createFoldRuntime` uses (the one place that decides them), on first use, and belong
 * to the scope rather than to any session, so closing a session leaves them open for the next.
 */
export async function createStoreScope(
  options: StoreScopeOptions,
  parent: DependencyContainer = rootContainer,
): Promise<StoreScope> {
  if (typeof options !== 'object' || options === null)
    throw new FoldError(
      'SETTINGS.INVALID',
      "createStoreScope needs options naming a store ('fs', 'sqlite' or 'memory')",
    );
  const kind = selectedStoreKind(options);
  if (kind === 'instance')
    throw new FoldError(
      'SETTINGS.INVALID',
      'createStoreScope builds a built-in store; pass a store instance to createFoldRuntime directly',
    );
  assertStoreLocation(options, 'createStoreScope');
  const scope = parent.createChildContainer();
  registerStoreFactories(scope, await storeBuilderOf(kind), options, { foldStore: true, evidenceStore: true });
  return {
    container: scope,
    async dispose() {
      await scope.dispose();
    },
  };
}
