export { DEFAULT_EVIDENCE_CAP_BYTES } from '../storage-shared/blob-checks.ts';
export { MemoryEvidenceStore } from './memory-evidence-store.ts';
export { MemoryFoldStore, type MemoryFoldStoreOptions } from './memory-fold-store.ts';
