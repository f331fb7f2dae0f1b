// SQLite is a preset of the Keyv adapter: this entry keeps exporting the Keyv stores it always
// exported, so `pi-fold/storage-sqlite` users need not change an import.
export * from '../storage-keyv/index.ts';
export {
  createSqliteEvidenceStore,
  createSqliteFoldStore,
  createSqliteKeyv,
  type SqliteStoreOptions,
} from './create-sqlite-store.ts';
