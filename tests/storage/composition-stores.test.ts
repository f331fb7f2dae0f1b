import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import type { QuotaFoldStore } from '../../application/retention/quota-fold-store.ts';
import { createFoldRuntime, type FoldRuntimeOptions } from '../../composition/create-fold-runtime.ts';
import { defaultStoreRoot } from '../../composition/store-selection.ts';
import { readFoldSource } from '../../core/store/fold-source.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { providerTokens } from '../support/drive-session.ts';
import { runCliCaptured } from './support/cli-capture.ts';
import { REDIS_URL_VARIABLE, serverUrl } from './support/server-urls.ts';
import { redisKeyv, removeScratch, runNamespace, scratchDirectory } from './support/storage-backends.ts';

const scratch = await scratchDirectory('composition');
afterAll(() => removeScratch(scratch), 120_000);

/** Run a folding session through the composition root, close it, and reopen it on the same store. */
async function foldThenReopen(
  options: Omit<FoldRuntimeOptions, 'sessionId' | 'settings'>,
): Promise<{ foldsBefore: number; foldsAfter: number; storeName: string }> {
  const sessionId = `composed-${Math.random().toString(16).slice(2)}`;
  const settings = { providerInputBudget: 30_000 };
  const session = new SyntheticSession({ seed: 5, resultChars: [3_000, 9_000] });
  const first = await createFoldRuntime({ sessionId, settings, ...options });
  for (let step = 0; step < 40; step += 1) {
    session.step();
    const result = await first.runtime.project(session.entries);
    first.runtime.recordUsage({
      input: providerTokens(result.ledger.totalChars),
      cacheRead: 0,
      cacheWrite: 0,
      output: 100,
    });
  }
  const foldsBefore = first.runtime.view.memory.foldIds.length;
  const storeName = first.runtime.view.foldStore.name;
  await first.dispose();
  const second = await createFoldRuntime({ sessionId, settings, ...options });
  try {
    const foldIds = [...second.runtime.view.memory.foldIds];
    // Every restored fold's exact source bytes come back verified from the store.
    for (const foldId of foldIds)
      expect(
        (await readFoldSource(second.runtime.view.foldStore, (id) => second.runtime.view.lattice.record(id), foldId))
          .length,
      ).toBeGreaterThan(0);
    await second.runtime.project(session.entries);
    return { foldsBefore, foldsAfter: foldIds.length, storeName };
  } finally {
    await second.dispose();
  }
}

describe('createFoldRuntime chooses the store from options', () => {
  test("'fs' with a storeRoot: folds persist across runtimes and verify finds them intact", async () => {
    const storeRoot = join(scratch, 'fs');
    const outcome = await foldThenReopen({ store: 'fs', storeRoot });
    expect(outcome.storeName).toBe('fs');
    expect(outcome.foldsBefore).toBeGreaterThan(0);
    expect(outcome.foldsAfter).toBe(outcome.foldsBefore);
    const report = await runCliCaptured(['verify', storeRoot, '--json']);
    expect(report.exitCode).toBe(0);
    expect(JSON.parse(report.out).checked.folds).toBe(outcome.foldsBefore);
  });

  test("'sqlite' with a sqlitePath: the same, in one database file", async () => {
    const sqlitePath = join(scratch, 'runtime.sqlite');
    const outcome = await foldThenReopen({ store: 'sqlite', sqlitePath });
    expect(outcome.storeName).toBe('sqlite');
    expect(outcome.foldsAfter).toBe(outcome.foldsBefore);
    expect(outcome.foldsBefore).toBeGreaterThan(0);
    expect((await runCliCaptured(['verify', sqlitePath])).exitCode).toBe(0);
  });

  test("'fs' is the default, rooted at PI_FOLD_HOME when set", async () => {
    const home = join(scratch, 'pi-fold-home');
    const previous = process.env.PI_FOLD_HOME;
    process.env.PI_FOLD_HOME = home;
    try {
      const composed = await createFoldRuntime({ sessionId: 'default-store' });
      // The root wraps the store with the session's size caps (QuotaFoldStore); the store inside is the fs one.
      const built = (composed.runtime.view.foldStore as QuotaFoldStore).inner;
      expect(built).toBeInstanceOf(FsFoldStore);
      expect((built as FsFoldStore).layout.root).toBe(home);
      await composed.dispose();
    } finally {
      if (previous === undefined) delete process.env.PI_FOLD_HOME;
      else process.env.PI_FOLD_HOME = previous;
    }
    expect(defaultStoreRoot({})).toBe(join(homedir(), '.local', 'share', 'pi-fold'));
    expect(defaultStoreRoot({ XDG_DATA_HOME: '/data' })).toBe('/data/pi-fold');
    expect(defaultStoreRoot({ PI_FOLD_HOME: '/srv/folds', XDG_DATA_HOME: '/data' })).toBe('/srv/folds');
  });

  test("'memory' still works, and an unknown store name is refused", async () => {
    const outcome = await foldThenReopen({ store: 'memory' });
    // A memory store is gone with its runtime: the reopened session starts empty.
    expect(outcome.foldsBefore).toBeGreaterThan(0);
    expect(outcome.foldsAfter).toBe(0);
    await expect(createFoldRuntime({ sessionId: 's', store: 'mongodb' as 'fs' })).rejects.toMatchObject({
      code: 'SETTINGS.INVALID',
      message: expect.stringContaining("'fs', 'sqlite', 'memory'"),
    });
  });

  test('a store built by the root is disposed with it; one passed in is left open', async () => {
    const sqlitePath = join(scratch, 'dispose.sqlite');
    const composed = await createFoldRuntime({ sessionId: 'dispose-check', store: 'sqlite', sqlitePath });
    const built = composed.runtime.view.foldStore as KeyvFoldStore;
    await composed.dispose();
    await expect(built.loadState('dispose-check')).rejects.toMatchObject({ code: 'STORE.READ_FAILED' });
    const mine = new FsFoldStore({ root: join(scratch, 'mine') });
    const passed = await createFoldRuntime({ sessionId: 'mine', store: mine });
    await passed.dispose();
    await mine.putBlob('still usable');
  });
});

const redis = serverUrl(REDIS_URL_VARIABLE);
if (redis.url !== undefined) {
  const url = redis.url;
  test('a KeyvFoldStore on Redis passed as the store: two runtimes share it', async () => {
    const store: FoldStore = new KeyvFoldStore({ keyv: redisKeyv(url, runNamespace()), ownsConnection: true });
    try {
      const outcome = await foldThenReopen({ store });
      expect(outcome.storeName).toBe('redis');
      expect(outcome.foldsBefore).toBeGreaterThan(0);
      expect(outcome.foldsAfter).toBe(outcome.foldsBefore);
    } finally {
      await store.dispose?.();
    }
  });
} else if (redis.required) {
  test('redis server is available for composition tests', () => {
    throw new Error(redis.missingReason);
  });
}
