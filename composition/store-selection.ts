import { homedir } from 'node:os';
import { join } from 'node:path';
import { QuotaFoldStore } from '../application/retention/quota-fold-store.ts';
import { FoldError } from '../core/fold-error.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';

/** The built-in stores a host can name instead of passing an instance. */
export type StoreKind = 'fs' | 'sqlite' | 'memory';

/**
 * How the composition root chooses storage. The defaults of every built-in store (which kind,
 * which directory, which file) are decided in this file and nowhere else; hosts that share
 * stores among sessions (the Pi adapter) ask for them through `createStoreScope`.
 */
export interface StoreSelectionOptions {
  /**
   * Where folds live: `'fs'` (a directory, default), `'sqlite'` (one file), `'memory'`
   * (gone at exit), or any FoldStore instance (e.g. a KeyvFoldStore on Redis/PostgreSQL).
   * @default 'fs'
   */
  readonly store?: StoreKind | FoldStore;
  /** Directory of the `'fs'` store. @default $PI_FOLD_HOME, else $XDG_DATA_HOME/pi-fold, else ~/.local/share/pi-fold */
  readonly storeRoot?: string;
  /**
   * Database file of the `'sqlite'` store. @default `<storeRoot>/pi-fold.sqlite` (storeRoot given,
   * or the default store root)
   */
  readonly sqlitePath?: string;
  /** Cumulative evidence per session for a built-in evidence store. @default 536870912 (512 MiB) */
  readonly evidenceCapBytes?: number;
  /**
   * Blob bytes one session's folds may hold; a commit that would pass it is skipped with
   * `STORE.QUOTA` (window intact). `Infinity` turns it off. Applies to stores with retention
   * support (all built-in ones).
   * @default 1073741824 (1 GiB)
   */
  readonly sessionCapBytes?: number;
  /**
   * Blob bytes the whole store may hold, checked the same way. Measured by listing every blob
   * once per runtime, so it is off unless set.
   * @default Infinity
   */
  readonly storeCapBytes?: number;
}

/** The per-user default store directory. */
export function defaultStoreRoot(environment: NodeJS.ProcessEnv = process.env): string {
  if (environment.PI_FOLD_HOME) return environment.PI_FOLD_HOME;
  if (environment.XDG_DATA_HOME) return join(environment.XDG_DATA_HOME, 'pi-fold');
  return join(homedir(), '.local', 'share', 'pi-fold');
}

/**
 * The built-in store a selection names, or `'instance'` when the host passed its own FoldStore.
 * This is where an absent `store` becomes `'fs'`, and where a name that is no store is refused
 * (before anything is opened).
 */
export function selectedStoreKind(options: StoreSelectionOptions): StoreKind | 'instance' {
  const store = options.store ?? 'fs';
  if (store === 'fs' || store === 'sqlite' || store === 'memory') return store;
  if (typeof store === 'object' && store !== null && store.specificationVersion === 'v1') return 'instance';
  throw new FoldError(
    'SETTINGS.INVALID',
    `store must be 'fs', 'sqlite', 'memory' or a FoldStore (specificationVersion 'v1'), got ${typeof store === 'string' ? JSON.stringify(store) : typeof store}`,
  );
}

/** Directory of the `'fs'` store (and of the default SQLite file). */
export function storeRootOf(options: StoreSelectionOptions): string {
  return options.storeRoot ?? defaultStoreRoot();
}

/** File name of the SQLite store inside a store root, when no `sqlitePath` is given. */
export const DEFAULT_SQLITE_FILE = 'pi-fold.sqlite';

/** Database file of the `'sqlite'` store. */
export function sqlitePathOf(options: StoreSelectionOptions): string {
  return options.sqlitePath ?? join(storeRootOf(options), DEFAULT_SQLITE_FILE);
}

/**
 * Wrap a session's store with its size caps. A store without retention support runs uncapped
 * when the host left the caps at their defaults, and is refused when the host asked for caps.
 */
export function withStoreCaps(store: FoldStore, sessionId: string, options: StoreSelectionOptions): FoldStore {
  const asked = options.sessionCapBytes !== undefined || options.storeCapBytes !== undefined;
  const off =
    options.sessionCapBytes === Number.POSITIVE_INFINITY &&
    (options.storeCapBytes ?? Number.POSITIVE_INFINITY) === Number.POSITIVE_INFINITY;
  if (off || (!asked && store.capabilities?.retention !== true)) return store;
  return new QuotaFoldStore(store, sessionId, {
    ...(options.sessionCapBytes === undefined ? {} : { sessionCapBytes: options.sessionCapBytes }),
    ...(options.storeCapBytes === undefined ? {} : { storeCapBytes: options.storeCapBytes }),
  });
}
