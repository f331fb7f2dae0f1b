import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { FsEvidenceStore } from '../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { sampleEngineState, sampleFoldRecord } from '../../testing/store-fixtures.ts';
import { runCliCaptured } from './support/cli-capture.ts';
import { POSTGRES_URL_VARIABLE, REDIS_URL_VARIABLE, serverUrl } from './support/server-urls.ts';
import {
  corruptKeyvBlob,
  flipByteInFile,
  postgresKeyv,
  redisKeyv,
  removeScratch,
  runNamespace,
  scratchDirectory,
} from './support/storage-backends.ts';

const scratch = await scratchDirectory('tamper');
afterAll(() => removeScratch(scratch), 120_000);

/** Fill a store with a little of everything; returns the sha of one blob to tamper with. */
async function populate(store: FoldStore): Promise<{ sha: string; sessionId: string; foldId: string }> {
  const sessionId = `session-${randomBytes(4).toString('hex')}`;
  let sha = '';
  const shas: string[] = [];
  for (let index = 0; index < 5; index += 1) shas.push((sha = await store.putBlob(randomBytes(2_000 + index))));
  // A state whose references all resolve: verify follows them, so a clean store must be whole.
  const record = sampleFoldRecord({
    parts: shas
      .slice(0, 2)
      .map((sha256, index) => ({ kind: 'entry', entryId: `entry-${index + 1}`, sha256, chars: 1 })),
  });
  await store.putFold(sessionId, record);
  await store.saveState(sessionId, { ...sampleEngineState(sessionId, 4), foldIds: [record.id] });
  return { sha, sessionId, foldId: record.id };
}

describe('fs store', () => {
  test('a flipped byte in a blob is refused on read and reported by verify by key', async () => {
    const root = join(scratch, 'fs-blob');
    const store = new FsFoldStore({ root });
    const { sha } = await populate(store);
    await new FsEvidenceStore({ root }).put('session-e', randomBytes(900));
    const clean = await runCliCaptured(['verify', root]);
    expect(clean.exitCode, clean.out).toBe(0);
    expect(clean.out).toContain('5 blobs, 1 fold records, 1 states, 1 artifacts verified; 0 problem(s)');

    await flipByteInFile(store.layout.blobPath(sha), 1_000);
    const refusal = await store.getBlob(sha).catch((error: unknown) => error);
    expect(refusal).toMatchObject({ code: 'STORE.HASH_MISMATCH' });
    expect((refusal as Error).message).toContain(sha);

    const report = await runCliCaptured(['verify', root]);
    expect(report.exitCode).toBe(1);
    expect(report.out).toContain(`PROBLEM STORE.HASH_MISMATCH blobs/sha256/${sha.slice(0, 2)}/${sha}`);
    expect(report.out).toContain('1 problem(s)');
  });

  test('a flipped byte in a fold record, a state file or an artifact is reported by key', async () => {
    const root = join(scratch, 'fs-records');
    const store = new FsFoldStore({ root });
    const { sessionId, foldId } = await populate(store);
    const evidence = await new FsEvidenceStore({ root }).put(sessionId, randomBytes(700));
    // Change one character inside the record's brief, keeping the JSON valid.
    const foldPath = store.layout.foldPath(sessionId, foldId);
    await flipByteInFile(foldPath, (await import('node:fs')).readFileSync(foldPath, 'utf8').indexOf('read_file') + 2);
    await writeFile(store.layout.statePath(sessionId), '{"envelopeVersion":1,"kind":"state"');
    await flipByteInFile(join(root, 'evidence', sessionId, evidence.sha256));
    await expect(store.getFold(sessionId, foldId)).rejects.toMatchObject({ code: 'STORE.HASH_MISMATCH' });
    await expect(store.loadState(sessionId)).rejects.toMatchObject({ code: 'STORE.HASH_MISMATCH' });

    const report = await runCliCaptured(['verify', root, '--json']);
    expect(report.exitCode).toBe(1);
    const problems = (JSON.parse(report.out) as { problems: { key: string; code: string }[] }).problems;
    expect(problems.map((problem) => problem.key).sort()).toEqual(
      [
        `evidence/${sessionId}/${evidence.sha256}`,
        `sessions/${sessionId}/folds/${foldId}.json`,
        `sessions/${sessionId}/state.json`,
      ].sort(),
    );
    expect(new Set(problems.map((problem) => problem.code))).toEqual(new Set(['STORE.HASH_MISMATCH']));
  });

  test('verify refuses a missing store instead of calling it clean', async () => {
    const report = await runCliCaptured(['verify', join(scratch, 'no-such-store')]);
    expect(report.exitCode).toBe(2);
    expect(report.error).toContain('cannot open');
  });
});

describe('sqlite store', () => {
  test('a byte changed in the database file is refused on read and reported by verify', async () => {
    const path = join(scratch, 'tamper.sqlite');
    const store = createSqliteFoldStore({ path });
    const { sha } = await populate(store);
    await store.dispose();
    expect((await runCliCaptured(['verify', path])).exitCode).toBe(0);

    // Edit the row with sqlite3 directly, as a disk fault or a stray tool would.
    const database = new sqlite3.Database(path);
    const changes = await new Promise<number>((resolve, reject) =>
      database.run(
        `UPDATE keyv SET value = replace(value, '"base64":"', '"base64":"AAAA') WHERE key = ?`,
        [`pi-fold:blob/${sha}`],
        function (this: { changes: number }, error: Error | null) {
          if (error) reject(error);
          else resolve(this.changes);
        },
      ),
    );
    await new Promise<void>((resolve) => database.close(() => resolve()));
    expect(changes).toBe(1);

    const reopened = createSqliteFoldStore({ path });
    await expect(reopened.getBlob(sha)).rejects.toMatchObject({
      code: 'STORE.HASH_MISMATCH',
      message: expect.stringContaining(sha),
    });
    await reopened.dispose();
    const report = await runCliCaptured(['verify', path]);
    expect(report.exitCode).toBe(1);
    expect(report.out).toContain(`PROBLEM STORE.HASH_MISMATCH blob/${sha}`);
  });
});

for (const backend of [
  { name: 'redis', variable: REDIS_URL_VARIABLE, connect: redisKeyv },
  { name: 'postgres', variable: POSTGRES_URL_VARIABLE, connect: postgresKeyv },
] as const) {
  const server = serverUrl(backend.variable);
  if (server.url === undefined) {
    if (server.required)
      test(`${backend.name} server is available for tamper tests`, () => {
        throw new Error(server.missingReason);
      });
    continue;
  }
  const url = server.url;
  test(`${backend.name}: a tampered blob is refused and verify reports it by key`, async () => {
    const namespace = runNamespace();
    // @keyv/postgres keeps one pool per process and `disconnect` ends it for every Keyv, so
    // each phase opens its own store and closes it before verify opens another.
    const open = () => new KeyvFoldStore({ keyv: backend.connect(url, namespace), ownsConnection: true });
    const writer = open();
    const { sha } = await populate(writer);
    await writer.dispose();
    const table = backend.name === 'postgres' ? ['--table', 'pi_fold_test'] : [];
    expect((await runCliCaptured(['verify', url, '--namespace', namespace, ...table])).exitCode).toBe(0);
    const reader = open();
    await corruptKeyvBlob(reader, sha);
    await expect(reader.getBlob(sha)).rejects.toMatchObject({
      code: 'STORE.HASH_MISMATCH',
      message: expect.stringContaining(sha),
    });
    await reader.dispose();
    const report = await runCliCaptured(['verify', url, '--namespace', namespace, ...table]);
    expect(report.exitCode).toBe(1);
    expect(report.out).toContain(`PROBLEM STORE.HASH_MISMATCH blob/${sha}`);
  });
}
