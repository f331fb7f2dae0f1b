import { createRequire } from 'node:module';
import type { KeyvStoreAdapter } from 'keyv';
import { FoldError } from '../../../core/fold-error.ts';

/**
 * What pi-fold uses of `@keyv/sqlite`'s adapter class (typed here so pi-fold's types never need the
 * optional package).
 */
export interface KeyvSqliteAdapter extends KeyvStoreAdapter {
  query(sql: string): Promise<unknown>;
}

type KeyvSqliteConstructor = new (options: {
  uri: string;
  busyTimeout: number;
  iterationLimit: number;
}) => KeyvSqliteAdapter;

/** The install line named when SQLite is chosen without its packages. */
export const SQLITE_INSTALL_HINT = 'npm install @keyv/sqlite@4.0.8 (it builds the native sqlite3 package)';

// Loaded on first use, synchronously, so that only a SQLite store needs `@keyv/sqlite` and its
// native `sqlite3`: they are optional peers, not dependencies, so nobody else builds sqlite3.
const requireFromHere = createRequire(import.meta.url);
let loaded: KeyvSqliteConstructor | undefined;

/**
 * `@keyv/sqlite`'s adapter class.
 * @throws FoldError `HOST.PACKAGE_MISSING` naming the package to install when it (or sqlite3) is absent.
 */
export function loadKeyvSqlite(): KeyvSqliteConstructor {
  if (loaded !== undefined) return loaded;
  let module: { default?: KeyvSqliteConstructor; KeyvSqlite?: KeyvSqliteConstructor };
  try {
    module = requireFromHere('@keyv/sqlite') as typeof module;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' || code === 'ERR_DLOPEN_FAILED') {
      throw new FoldError(
        'HOST.PACKAGE_MISSING',
        `store 'sqlite' needs the optional package @keyv/sqlite, which could not be loaded (${(error as Error).message.split('\n')[0]}); install it: ${SQLITE_INSTALL_HINT}`,
        { cause: error, details: { package: '@keyv/sqlite' } },
      );
    }
    throw error;
  }
  const adapterClass = module.KeyvSqlite ?? module.default;
  if (typeof adapterClass !== 'function')
    throw new FoldError(
      'HOST.PACKAGE_MISSING',
      `@keyv/sqlite exports no adapter class; install a supported version: ${SQLITE_INSTALL_HINT}`,
    );
  loaded = adapterClass;
  return adapterClass;
}
