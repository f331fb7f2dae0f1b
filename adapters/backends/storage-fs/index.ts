export { DEFAULT_EVIDENCE_CAP_BYTES } from '../storage-shared/blob-checks.ts';
export type { StoreAuditReport, StoreProblem } from '../storage-shared/store-audit.ts';
export { FsEvidenceStore, type FsEvidenceStoreOptions } from './fs-evidence-store.ts';
export { FsFoldStore, type FsFoldStoreOptions } from './fs-fold-store.ts';
export { assertStoreRootExists, auditFsStore } from './fs-store-audit.ts';
export { FsStoreLayout } from './fs-store-layout.ts';
