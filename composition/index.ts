export { createFoldRuntime, type FoldRuntimeOptions, type ComposedRuntime } from './create-fold-runtime.ts';
export { createStoreScope, type StoreScope, type StoreScopeOptions } from './store-scope.ts';
export * from './tokens.ts';
export { defaultStoreRoot, type StoreKind, type StoreSelectionOptions } from './store-selection.ts';
