import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import Keyv from 'keyv';
import { FoldError } from '../../../core/fold-error.ts';
import { KeyvEvidenceStore } from '../storage-keyv/keyv-evidence-store.ts';
import { KeyvFoldStore } from '../storage-keyv/keyv-fold-store.ts';
import { loadKeyvSqlite } from './load-keyv-sqlite.ts';

/** Options of the SQLite convenience constructors. */
export interface SqliteStoreOptions {
  /** Path of the SQLite database file; its directory is created when missing. */
  readonly path: string;
  /** Keyv namespace inside the file (no ':'). @default 'pi-fold' */
  readonly namespace?: string;
  /** How long a write waits for another process's lock before failing, in ms. @default 10000 */
  readonly busyTimeoutMs?: number;
  /**
   * `'wal'` switches the file to WAL as it opens (what a runtime wants: readers never block
   * the writer); `'keep'` leaves its journal mode as it is, for tools that must not change a
   * file they only maintain. @default 'wal'
   */
  readonly journalMode?: 'wal' | 'keep';
}

/**
 * A Keyv on SQLite set up the way pi-fold needs: `throwOnErrors`, a namespace, a busy
 * timeout so two processes can share the file, and WAL so readers never block the writer.
 * @throws FoldError `HOST.PACKAGE_MISSING` when the optional `@keyv/sqlite` is not installed.
 */
export function createSqliteKeyv(options: SqliteStoreOptions): Keyv {
  if (typeof options?.path !== 'string' || options.path.length === 0 || options.path.includes('\0')) {
    throw new FoldError('SETTINGS.INVALID', 'sqlite store: path must be a database file path');
  }
  const namespace = options.namespace ?? 'pi-fold';
  if (namespace.includes(':') || namespace.length === 0)
    throw new FoldError(
      'SETTINGS.INVALID',
      `sqlite store: namespace ${JSON.stringify(namespace)} must be non-empty and contain no ':'`,
    );
  const KeyvSqlite = loadKeyvSqlite();
  const path = resolve(options.path);
  mkdirSync(dirname(path), { recursive: true });
  const adapter = new KeyvSqlite({
    uri: `sqlite://${path}`,
    busyTimeout: options.busyTimeoutMs ?? 10_000,
    iterationLimit: 200,
  });
  // WAL lets one process read while another writes; failures surface on the first real query.
  if (options.journalMode !== 'keep') void adapter.query('PRAGMA journal_mode=WAL').catch(() => undefined);
  return new Keyv({ store: adapter, namespace, throwOnErrors: true });
}

/** A FoldStore in one SQLite file (closed by its `dispose()`). */
export function createSqliteFoldStore(options: SqliteStoreOptions): KeyvFoldStore {
  return new KeyvFoldStore({ keyv: createSqliteKeyv(options), name: 'sqlite', ownsConnection: true });
}

/** An EvidenceStore in one SQLite file (may be the fold store's file). */
export function createSqliteEvidenceStore(
  options: SqliteStoreOptions & { readonly capBytes?: number },
): KeyvEvidenceStore {
  return new KeyvEvidenceStore({
    keyv: createSqliteKeyv(options),
    name: 'sqlite',
    ownsConnection: true,
    ...(options.capBytes === undefined ? {} : { capBytes: options.capBytes }),
  });
}
