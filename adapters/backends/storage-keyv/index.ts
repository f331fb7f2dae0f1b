export type { StoreAuditReport, StoreProblem } from '../storage-shared/store-audit.ts';
export { KeyvConnection, type KeyvStoreOptions } from './keyv-connection.ts';
export { KeyvEvidenceStore, type KeyvEvidenceStoreOptions } from './keyv-evidence-store.ts';
export { KeyvFoldStore } from './keyv-fold-store.ts';
export { auditKeyvStore } from './keyv-store-audit.ts';
