export { createFoldRuntime, type FoldRuntimeOptions, type ComposedRuntime } from './create-fold-runtime.ts';
export { createStoreScope, type StoreScope, type StoreScopeOptions } from './store-scope.ts';
export * from './tokens.ts';
export { defaultStoreRoot, type StoreKind, type StoreSelectionOptions } from './store-selection.ts';
// The settings `createFoldRuntime` takes, so a runtime user names them from this entry too.
export type { FoldSettingsInput, Thresholds, SchedulingMode } from '../core/settings.ts';
export type { SpillPolicy } from '../core/spill/spill-policy.ts';
