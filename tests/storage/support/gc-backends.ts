import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { FsFoldStore } from '../../../adapters/backends/storage-fs/fs-fold-store.ts';
import { MemoryFoldStore } from '../../../adapters/backends/storage-memory/memory-fold-store.ts';
import { createSqliteFoldStore } from '../../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';

/** A local backend gc tests run against: a fresh, empty store per call. */
export interface LocalGcBackend {
  readonly name: string;
  /** Property-test runs (fewer for backends that fsync). */
  readonly runs: number;
  fresh(scratch: string): FoldStore;
}

const unique = () => randomBytes(6).toString('hex');

export const localGcBackends: readonly LocalGcBackend[] = [
  { name: 'memory', runs: 60, fresh: () => new MemoryFoldStore() },
  { name: 'fs', runs: 12, fresh: (scratch) => new FsFoldStore({ root: join(scratch, `fs-${unique()}`) }) },
  {
    name: 'sqlite',
    runs: 15,
    fresh: (scratch) => createSqliteFoldStore({ path: join(scratch, `gc-${unique()}.sqlite`) }),
  },
];
