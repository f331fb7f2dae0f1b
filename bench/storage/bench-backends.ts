import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Keyv from 'keyv';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';

/** A backend to measure; `open` returns undefined (with a reason) when it cannot run here. */
export interface BenchBackend {
  readonly name: string;
  open(): Promise<FoldStore | string>;
}

const scratchDirectories: string[] = [];
const scratch = async () => {
  const directory = await mkdtemp(join(tmpdir(), 'pi-fold-bench-'));
  scratchDirectories.push(directory);
  return directory;
};

/** Remove the directories the fs and sqlite backends wrote to. */
export async function removeBenchScratch(): Promise<void> {
  await Promise.all(scratchDirectories.map((directory) => rm(directory, { recursive: true, force: true })));
}
const namespace = () => `pi-fold-bench-${Math.random().toString(16).slice(2)}`;

export const BENCH_BACKENDS: readonly BenchBackend[] = [
  { name: 'memory', open: async () => new MemoryFoldStore() },
  { name: 'fs', open: async () => new FsFoldStore({ root: await scratch() }) },
  { name: 'sqlite', open: async () => createSqliteFoldStore({ path: join(await scratch(), 'bench.sqlite') }) },
  {
    name: 'redis',
    async open() {
      const url = process.env.PI_FOLD_TEST_REDIS_URL;
      if (!url) return 'PI_FOLD_TEST_REDIS_URL not set';
      const { default: KeyvRedis } = await import('@keyv/redis');
      return new KeyvFoldStore({
        keyv: new Keyv({
          store: new KeyvRedis(url, { throwOnErrors: true }),
          namespace: namespace(),
          throwOnErrors: true,
          useKeyPrefix: false,
        }),
        ownsConnection: true,
      });
    },
  },
  {
    name: 'postgres',
    async open() {
      const url = process.env.PI_FOLD_TEST_POSTGRES_URL;
      if (!url) return 'PI_FOLD_TEST_POSTGRES_URL not set';
      const { default: KeyvPostgres } = await import('@keyv/postgres');
      return new KeyvFoldStore({
        keyv: new Keyv({
          store: new KeyvPostgres({ uri: url, keySize: 512, table: 'pi_fold_bench' }),
          namespace: namespace(),
          throwOnErrors: true,
        }),
        ownsConnection: true,
      });
    },
  },
];
