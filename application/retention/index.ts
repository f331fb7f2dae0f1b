export { collectGarbage, DEFAULT_GC_GRACE_MS, type BlobTally, type GarbageCollectionOptions, type GarbageCollectionProgress, type GarbageCollectionReport } from './store-gc.ts';
export { findReachableBlobs, type ReachableBlobs } from './store-reachability.ts';
export { QuotaFoldStore, DEFAULT_SESSION_CAP_BYTES, type StoreCaps } from './quota-fold-store.ts';
