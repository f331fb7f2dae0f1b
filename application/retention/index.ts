export { DEFAULT_SESSION_CAP_BYTES, QuotaFoldStore, type StoreCaps } from './quota-fold-store.ts';
export {
  type BlobTally,
  collectGarbage,
  DEFAULT_GC_GRACE_MS,
  type GarbageCollectionOptions,
  type GarbageCollectionProgress,
  type GarbageCollectionReport,
} from './store-gc.ts';
export { findReachableBlobs, type ReachableBlobs } from './store-reachability.ts';
