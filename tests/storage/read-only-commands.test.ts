import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { sampleEngineState, sampleFoldRecord } from '../../testing/store-fixtures.ts';
import { runCliCaptured } from './support/cli-capture.ts';
import {
  filesChecksum,
  foreignSqliteFile,
  postgresClient,
  postgresTablesChecksum,
  redisKeysChecksum,
  writeForeignRedisKeys,
} from './support/foreign-targets.ts';
import { POSTGRES_URL_VARIABLE, REDIS_URL_VARIABLE, serverUrl } from './support/server-urls.ts';
import { postgresKeyv, redisKeyv, removeScratch, runNamespace, scratchDirectory } from './support/storage-backends.ts';
import { directorySnapshot, keyvSnapshot } from './support/store-snapshots.ts';

/**
 * `verify` and `gc --dry-run` are read-only: on a real store not one byte changes, and a
 * target that holds no pi-fold store is refused (exit 2, "holds no pi-fold store") without
 * being written to — checked by content hashes taken before and after, per backend.
 */
const scratch = await scratchDirectory('read-only');
afterAll(() => removeScratch(scratch), 60_000);

/** A little of everything, with one unreferenced blob so the dry run has something to report. */
async function populate(store: FoldStore): Promise<void> {
  const sessionId = `session-${randomBytes(4).toString('hex')}`;
  const entries = [await store.putBlob(randomBytes(1_000)), await store.putBlob(randomBytes(2_000))];
  await store.putBlob(randomBytes(3_000));
  const record = sampleFoldRecord({
    parts: entries.map((sha256, index) => ({
      kind: 'entry',
      entryId: `entry-${index + 1}`,
      sha256,
      chars: 1_000 * (index + 1),
    })),
  });
  await store.putFold(sessionId, record);
  await store.saveState(sessionId, { ...sampleEngineState(sessionId, 4), foldIds: [record.id], pins: [] });
}

/** Run both read-only commands; each must succeed and leave `checksum()` unchanged. */
async function expectReadOnlySuccess(target: readonly string[], checksum: () => Promise<string>): Promise<void> {
  const before = await checksum();
  const verified = await runCliCaptured(['verify', ...target]);
  expect(verified.exitCode, verified.out + verified.error).toBe(0);
  expect(verified.out).toContain('1 fold records, 1 states');
  const dryRun = await runCliCaptured(['gc', ...target, '--dry-run', '--grace-minutes', '0']);
  expect(dryRun.exitCode, dryRun.error).toBe(0);
  expect(dryRun.out).toContain('nothing was changed');
  expect(await checksum()).toBe(before);
}

/** verify, gc --dry-run and gc itself must all refuse the target and leave it as it was. */
async function expectRefusedUntouched(target: readonly string[], checksum: () => Promise<string>): Promise<void> {
  const before = await checksum();
  for (const command of [['verify'], ['gc', '--dry-run'], ['gc']]) {
    const [name, ...flags] = command;
    const result = await runCliCaptured([name!, ...target, ...flags]);
    expect(result.exitCode, `${command.join(' ')}: ${result.out}`).toBe(2);
    expect(result.error).toContain('holds no pi-fold store');
    expect(await checksum()).toBe(before);
  }
}

describe('local backends', () => {
  test('fs: verify and gc --dry-run change no file of a store', async () => {
    const root = join(scratch, 'fs-store');
    await populate(new FsFoldStore({ root }));
    await expectReadOnlySuccess([root], () => directorySnapshot(root));
  });

  test('sqlite: verify and gc --dry-run change no byte of a store file', async () => {
    const directory = join(scratch, 'sqlite-store');
    await mkdir(directory);
    const path = join(directory, 'folds.sqlite');
    const store = createSqliteFoldStore({ path });
    await populate(store);
    await store.dispose();
    await expectReadOnlySuccess([path], () => filesChecksum(directory));
  });

  test('sqlite: a foreign SQLite file is refused and not written (no keyv table appears)', async () => {
    const directory = join(scratch, 'sqlite-foreign');
    await mkdir(directory);
    const path = join(directory, 'app.sqlite');
    await foreignSqliteFile(path);
    await expectRefusedUntouched([path], () => filesChecksum(directory));
  });

  test('sqlite: a file with a keyv table but nothing under the namespace is refused', async () => {
    const directory = join(scratch, 'sqlite-other-namespace');
    await mkdir(directory);
    const path = join(directory, 'shared.sqlite');
    const store = createSqliteFoldStore({ path, namespace: 'someone-else' });
    await populate(store);
    await store.dispose();
    await expectRefusedUntouched([path], () => filesChecksum(directory));
  });
});

const redis = serverUrl(REDIS_URL_VARIABLE);
const postgres = serverUrl(POSTGRES_URL_VARIABLE);

describe.skipIf(redis.url === undefined && !redis.required)('redis', () => {
  const url = redis.url ?? '';
  test('verify and gc --dry-run change no key of a store', async () => {
    const namespace = runNamespace();
    const store = new KeyvFoldStore({ keyv: redisKeyv(url, namespace), ownsConnection: true });
    try {
      await populate(store);
      await expectReadOnlySuccess([url, '--namespace', namespace], () => keyvSnapshot(store));
    } finally {
      await store.dispose();
    }
  });

  test('a database holding other keys and none of the namespace is refused and not written', async () => {
    const namespace = runNamespace();
    const foreign = `other-app-${randomBytes(4).toString('hex')}:`;
    await writeForeignRedisKeys(url, foreign);
    await expectRefusedUntouched([url, '--namespace', namespace], () => redisKeysChecksum(url, [foreign, namespace]));
  });
});

describe.skipIf(postgres.url === undefined && !postgres.required)('postgres', () => {
  const url = postgres.url ?? '';
  test('verify and gc --dry-run change no row of a store', async () => {
    const namespace = runNamespace();
    const store = new KeyvFoldStore({ keyv: postgresKeyv(url, namespace), ownsConnection: true });
    await populate(store);
    await store.dispose();
    const client = await postgresClient(url);
    try {
      await expectReadOnlySuccess([url, '--namespace', namespace, '--table', 'pi_fold_test'], () =>
        postgresTablesChecksum(client, ['pi_fold_test']),
      );
    } finally {
      await client.end();
    }
  });

  test('a database holding other tables and no store table is refused, and no table is created', async () => {
    const suffix = randomBytes(4).toString('hex');
    const foreign = `orders_${suffix}`;
    const wanted = `pi_fold_absent_${suffix}`;
    const client = await postgresClient(url);
    try {
      await client.query(`CREATE TABLE "${foreign}"(id serial PRIMARY KEY, item text)`);
      await client.query(`INSERT INTO "${foreign}"(item) VALUES ('tea'), ('milk')`);
      await expectRefusedUntouched([url, '--table', wanted], () => postgresTablesChecksum(client, [foreign, wanted]));
    } finally {
      await client.query(`DROP TABLE IF EXISTS "${foreign}"`);
      await client.end();
    }
  });

  test('a store table with nothing under the namespace is refused', async () => {
    const client = await postgresClient(url);
    try {
      await expectRefusedUntouched([url, '--namespace', runNamespace(), '--table', 'pi_fold_test'], () =>
        postgresTablesChecksum(client, ['pi_fold_test']),
      );
    } finally {
      await client.end();
    }
  });
});
