// The settings `createFoldRuntime` takes, so a runtime user names them from this entry too.
export type { FoldSettingsInput, SchedulingMode, Thresholds } from '../core/settings/settings.ts';
export type { SpillPolicy } from '../core/settings/spill-policy.ts';
export {
  type ComposedRuntime,
  createFoldRuntime,
  type FoldRuntimeOptions,
  type RuntimePorts,
} from './create-fold-runtime.ts';
export { createStoreScope, type StoreScope, type StoreScopeOptions } from './store-scope.ts';
export { defaultStoreRoot, type StoreKind, type StoreSelectionOptions } from './store-selection.ts';
