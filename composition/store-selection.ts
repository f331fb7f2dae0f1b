import { homedir } from 'node:os';
import { join } from 'node:path';
import { FsEvidenceStore } from '../adapters/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../adapters/storage-fs/fs-fold-store.ts';
import { MemoryEvidenceStore } from '../adapters/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../adapters/storage-memory/memory-fold-store.ts';
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
  /** Database file of the `'sqlite'` store. @default <default store root>/pi-fold.sqlite */
  readonly sqlitePath?: string;
  /** Cumulative evidence per session for a built-in evidence store. @default 536870912 (512 MiB) */
  readonly evidenceCapBytes?: number;
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

function sqlitePathOf(options: StoreSelectionOptions): string {
  return options.sqlitePath ?? join(defaultStoreRoot(), 'pi-fold.sqlite');
}
