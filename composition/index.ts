export { createFoldRuntime, type FoldRuntimeOptions, type ComposedRuntime } from './create-fold-runtime.ts';
export * from './tokens.ts';
export { defaultStoreRoot, type StoreKind, type StoreSelectionOptions } from './store-selection.ts';
