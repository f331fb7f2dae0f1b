import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { auditFsStore } from '../../adapters/backends/storage-fs/fs-store-audit.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { auditKeyvStore } from '../../adapters/backends/storage-keyv/keyv-store-audit.ts';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { runWriter } from './support/child-writers.ts';
import { POSTGRES_URL_VARIABLE, REDIS_URL_VARIABLE, serverUrl } from './support/server-urls.ts';
import { postgresKeyv, redisKeyv, removeScratch, runNamespace, scratchDirectory } from './support/storage-backends.ts';

/**
 * Two processes write the same store at once. Their blob streams overlap (same seed, so
 * the same bytes race to the same key) and each also writes its own session's records and
 * state. Nothing either reported may be missing or damaged afterwards.
 */
const scratch = await scratchDirectory('concurrent');
afterAll(() => removeScratch(scratch), 120_000);
const BLOBS_PER_WRITER = 40;

const servers = { redis: serverUrl(REDIS_URL_VARIABLE), postgres: serverUrl(POSTGRES_URL_VARIABLE) };

/** Where each backend's shared store is, and how the checking side opens it. */
function sharedStore(backend: 'fs' | 'sqlite' | 'redis' | 'postgres'): { target: string; open: () => FoldStore } {
  if (backend === 'fs')
    return { target: join(scratch, 'fs-root'), open: () => new FsFoldStore({ root: join(scratch, 'fs-root') }) };
  if (backend === 'sqlite')
    return {
      target: join(scratch, 'shared.sqlite'),
      open: () => createSqliteFoldStore({ path: join(scratch, 'shared.sqlite') }),
    };
  const url = servers[backend].url ?? '';
  const namespace = runNamespace();
  return {
    target: `${url}#${namespace}`,
    open: () =>
      new KeyvFoldStore({
        keyv: (backend === 'redis' ? redisKeyv : postgresKeyv)(url, namespace),
        ownsConnection: true,
      }),
  };
}

for (const backend of ['fs', 'sqlite', 'redis', 'postgres'] as const) {
  if (backend === 'redis' || backend === 'postgres') {
    const server = servers[backend];
    if (server.url === undefined) {
      if (server.required)
        test(`${backend} server is available for the two-writer test`, () => {
          throw new Error(server.missingReason);
        });
      continue;
    }
  }
  test.concurrent(`${backend}: two processes writing one store lose and corrupt nothing`, {
    timeout: 180_000,
  }, async () => {
    const { target, open } = sharedStore(backend);
    const [first, second] = await Promise.all([
      runWriter({ backend, target, sessionId: 'writer-a', seed: 42, count: BLOBS_PER_WRITER }),
      runWriter({ backend, target, sessionId: 'writer-b', seed: 42, count: BLOBS_PER_WRITER }),
    ]);
    for (const report of [first, second]) {
      expect(report.stderr).toBe('');
      expect(report.exit.code).toBe(0);
      expect(report.blobs).toHaveLength(BLOBS_PER_WRITER);
    }
    // Same seed, same bytes: both writers raced on every key.
    expect(second.blobs).toEqual(first.blobs);
    const store = open();
    try {
      for (const sha of first.blobs) expect((await store.getBlob(sha)).length).toBeGreaterThan(0);
      for (const report of [first, second]) {
        const sessionId = report.folds[0]?.sessionId ?? '';
        const listed = (await store.listFolds(sessionId)).map((record) => record.id).sort();
        expect(listed).toEqual(report.folds.map((fold) => fold.foldId).sort());
        expect((await store.loadState(sessionId))?.revision).toBe(report.states.at(-1)?.revision);
      }
      const audit =
        backend === 'fs' ? await auditFsStore(target) : await auditKeyvStore((store as KeyvFoldStore).connection);
      expect(audit.problems).toEqual([]);
      expect(audit.notes).toEqual([]);
      expect(audit.checked.blobs).toBe(BLOBS_PER_WRITER);
    } finally {
      await store.dispose?.();
    }
  });
}
