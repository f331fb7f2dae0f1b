export { DEFAULT_EVIDENCE_CAP_BYTES, MemoryEvidenceStore } from './memory-evidence-store.ts';
export { MemoryFoldStore, type MemoryFoldStoreOptions } from './memory-fold-store.ts';
