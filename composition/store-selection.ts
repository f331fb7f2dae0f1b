import { homedir } from 'node:os';
import { join } from 'node:path';
import { FsEvidenceStore } from '../adapters/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../adapters/storage-fs/fs-fold-store.ts';
import { MemoryEvidenceStore } from '../adapters/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../adapters/storage-memory/memory-fold-store.ts';
import { QuotaFoldStore } from '../application/retention/quota-fold-store.ts';
import { FoldError } from '../core/fold-error.ts';
import type { EvidenceStore } from '../ports/evidence-store.port.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';

/** The built-in stores a host can name instead of passing an instance. */
export type StoreKind = 'fs' | 'sqlite' | 'memory';

/** How the composition root chooses storage. */
export interface StoreSelectionOptions {
  /**
   * Where folds live: `'fs'` (a directory, default), `'sqlite'` (one file), `'memory'`
   * (gone at exit), or any FoldStore instance (e.g. a KeyvFoldStore on Redis/PostgreSQL).
   * @default 'fs'
   */
  readonly store?: StoreKind | FoldStore;
  /** Directory of the `'fs'` store. @default $PI_FOLD_HOME, else $XDG_DATA_HOME/pi-fold, else ~/.local/share/pi-fold */
  readonly storeRoot?: string;
  /** Database file of the `'sqlite'` store. @default `<storeRoot>/pi-fold.sqlite` (storeRoot given, or the default store root) */
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

/** Build the fold store a host named; `undefined` when the host passed its own instance. */
export async function createNamedFoldStore(options: StoreSelectionOptions): Promise<FoldStore | undefined> {
  const store = options.store ?? 'fs';
  if (store === 'fs') return new FsFoldStore({ root: options.storeRoot ?? defaultStoreRoot() });
  if (store === 'sqlite') return (await loadSqlite()).createSqliteFoldStore({ path: sqlitePathOf(options) });
  if (store === 'memory') return new MemoryFoldStore();
  if (typeof store === 'object' && store !== null && store.specificationVersion === 'v1') return undefined;
  throw new FoldError('SETTINGS.INVALID', `store must be 'fs', 'sqlite', 'memory' or a FoldStore (specificationVersion 'v1'), got ${typeof store === 'string' ? JSON.stringify(store) : typeof store}`);
}

/** The evidence store that goes with a named fold store: same directory or file, else memory. */
export async function createMatchingEvidenceStore(options: StoreSelectionOptions): Promise<EvidenceStore> {
  const store = options.store ?? 'fs';
  const capBytes = options.evidenceCapBytes;
  if (store === 'fs') return new FsEvidenceStore({ root: options.storeRoot ?? defaultStoreRoot(), ...(capBytes === undefined ? {} : { capBytes }) });
  if (store === 'sqlite') return (await loadSqlite()).createSqliteEvidenceStore({ path: sqlitePathOf(options), ...(capBytes === undefined ? {} : { capBytes }) });
  return new MemoryEvidenceStore(capBytes);
}

// SQLite is a native module: load it only for hosts that chose it.
const loadSqlite = () => import('../adapters/storage-sqlite/create-sqlite-store.ts');

/** File name of the SQLite store inside a store root, when no `sqlitePath` is given. */
export const DEFAULT_SQLITE_FILE = 'pi-fold.sqlite';

function sqlitePathOf(options: StoreSelectionOptions): string {
  return options.sqlitePath ?? join(options.storeRoot ?? defaultStoreRoot(), DEFAULT_SQLITE_FILE);
}

/**
 * Wrap a session's store with its size caps. A store without retention support runs uncapped
 * when the host left the caps at their defaults, and is refused when the host asked for caps.
 */
export function withStoreCaps(store: FoldStore, sessionId: string, options: StoreSelectionOptions): FoldStore {
  const asked = options.sessionCapBytes !== undefined || options.storeCapBytes !== undefined;
  const off = options.sessionCapBytes === Number.POSITIVE_INFINITY && (options.storeCapBytes ?? Number.POSITIVE_INFINITY) === Number.POSITIVE_INFINITY;
  if (off || (!asked && store.capabilities?.retention !== true)) return store;
  return new QuotaFoldStore(store, sessionId, {
    ...(options.sessionCapBytes === undefined ? {} : { sessionCapBytes: options.sessionCapBytes }),
    ...(options.storeCapBytes === undefined ? {} : { storeCapBytes: options.storeCapBytes }),
  });
}
