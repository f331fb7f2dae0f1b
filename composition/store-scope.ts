import { type DependencyContainer, container as rootContainer } from 'tsyringe';
import { FoldError } from '../core/fold-error.ts';
import { assertStoreLocation, refuseRemovedMember } from './option-checks.ts';
import { registerStoreFactories, storeBuilderOf } from './store-factories.ts';
import { type StoreKind, type StoreSelectionOptions, selectedStoreKind } from './store-selection.ts';

/** A built-in store chosen once and shared by every session opened in it. */
export interface StoreScopeOptions
  extends Pick<StoreSelectionOptions, 'storeRoot' | 'sqlitePath' | 'evidenceCapBytes'> {
  readonly store: StoreKind;
}

/**
 * One fold store and its evidence store, for many sessions: pass it as `scope` to
 * `createFoldRuntime`, and sessions that name no store of their own use these.
 */
export interface StoreScope {
  /** Close the stores the scope built (after its sessions are closed). */
  dispose(): Promise<void>;
}

// The container behind each scope stays inside the composition root: a host holds the scope,
// never the container, so no public type names tsyringe.
const scopeContainers = new WeakMap<StoreScope, DependencyContainer>();

/**
 * A scope built on a parent container for sessions that share one store: the stores are built
 * from the same defaults `createFoldRuntime` uses (the one place that decides them), on first
 * use, and belong to the scope rather than to any session, so closing a session leaves them
 * open for the next.
 */
export async function createStoreScope(options: StoreScopeOptions): Promise<StoreScope> {
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
  const container = rootContainer.createChildContainer();
  registerStoreFactories(container, await storeBuilderOf(kind), options, { foldStore: true, evidenceStore: true });
  const scope: StoreScope = {
    async dispose() {
      await container.dispose();
    },
  };
  refuseRemovedMember(
    scope,
    'container',
    'StoreScope.container',
    'pass the scope itself: createFoldRuntime({ scope })',
  );
  scopeContainers.set(scope, container);
  return scope;
}

/** The container of a scope `createStoreScope` made; anything else is refused by name. */
export function scopeContainerOf(scope: unknown, who: string): DependencyContainer {
  const container = typeof scope === 'object' && scope !== null ? scopeContainers.get(scope as StoreScope) : undefined;
  if (container === undefined)
    throw new FoldError('SETTINGS.INVALID', `${who}: scope must be a store scope made by createStoreScope`, {
      details: { option: 'scope' },
    });
  return container;
}
