export { MemoryFoldStore, type MemoryFoldStoreOptions } from './memory-fold-store.ts';
export { MemoryEvidenceStore, DEFAULT_EVIDENCE_CAP_BYTES } from './memory-evidence-store.ts';
