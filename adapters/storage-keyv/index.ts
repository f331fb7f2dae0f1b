export { KeyvFoldStore } from './keyv-fold-store.ts';
export { KeyvEvidenceStore, type KeyvEvidenceStoreOptions } from './keyv-evidence-store.ts';
export { KeyvConnection, type KeyvStoreOptions } from './keyv-connection.ts';
export { auditKeyvStore } from './keyv-store-audit.ts';
export type { StoreAuditReport, StoreProblem } from '../storage-shared/store-audit.ts';
