import { chmod, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { blobKey, foldKey } from '../../adapters/backends/storage-keyv/keyv-records.ts';
import { wrapFold } from '../../adapters/backends/storage-shared/stored-records.ts';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import type { FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { FAULT_SESSION, foldedSession, nestedPair, withAncestors } from '../hardening/support/store-faults.ts';
import { runCliCaptured } from './support/cli-capture.ts';
import { REDIS_URL_VARIABLE, serverUrl } from './support/server-urls.ts';
import { redisKeyv, removeScratch, runNamespace, scratchDirectory } from './support/storage-backends.ts';

/**
 * `verify` follows what each session needs (state → records → nested folds → blobs): every
 * object sound on its own is no all-clear when a reference is broken. Each break is named
 * with its session and what it costs, and verify exits 1.
 */
const scratch = await scratchDirectory('verify-graph');
afterAll(() => removeScratch(scratch), 60_000);

function entryBlobOf(record: FoldRecord): string {
  const part = record.parts.find((candidate) => candidate.kind === 'entry');
  if (part?.kind !== 'entry') throw new Error(`fold ${record.id} has no entry part`);
  return part.sha256;
}

async function verify(target: readonly string[]) {
  const run = await runCliCaptured(['verify', ...target]);
  return { ...run, text: run.out + run.error };
}

describe('verify follows references (fs)', () => {
  test('a record the state lists is gone: named with its session and the folds it costs; gc points here', async () => {
    const root = join(scratch, 'fs-record');
    const store = new FsFoldStore({ root });
    const before = await foldedSession(store);
    expect((await verify([root])).exitCode).toBe(0);
    const { child } = nestedPair(before.records);
    await unlink(store.layout.foldPath(FAULT_SESSION, child.id));
    const report = await verify([root]);
    expect(report.exitCode, report.text).toBe(1);
    expect(report.text).toContain(`PROBLEM STORE.NOT_FOUND session/${FAULT_SESSION}/fold/${child.id}`);
    expect(report.text).toContain(`session ${FAULT_SESSION} lists fold ${child.id}`);
    for (const ancestor of withAncestors(before.records, child.id)) expect(report.text).toContain(ancestor);
    // gc refuses and sends the user to verify, which now names the same break.
    const gc = await runCliCaptured(['gc', root, '--dry-run']);
    expect(gc.out + gc.error).toContain('pi-fold verify');
    expect(gc.out + gc.error).toContain(child.id);
  }, 60_000);

  test('a blob a fold needs is gone', async () => {
    const root = join(scratch, 'fs-blob');
    const store = new FsFoldStore({ root });
    const before = await foldedSession(store);
    const victim = before.records[0]!;
    const sha = entryBlobOf(victim);
    await unlink(store.layout.blobPath(sha));
    const report = await verify([root]);
    expect(report.exitCode, report.text).toBe(1);
    expect(report.text).toContain(`PROBLEM STORE.NOT_FOUND blob/${sha}`);
    expect(report.text).toContain(`session ${FAULT_SESSION}: fold ${victim.id} needs blob ${sha}`);
    expect(report.text).toContain('cannot be peeked');
  }, 60_000);

  test('a record whose envelope is re-hashed around a malformed body', async () => {
    const root = join(scratch, 'fs-malformed');
    const store = new FsFoldStore({ root });
    const before = await foldedSession(store);
    const victim = before.records[0]!;
    const path = store.layout.foldPath(FAULT_SESSION, victim.id);
    await chmod(path, 0o644);
    const malformed = { ...victim, parts: [{ kind: 'entry', entryId: 7 }] } as unknown as FoldRecord;
    await writeFile(path, JSON.stringify(wrapFold(FAULT_SESSION, malformed)));
    const report = await verify([root]);
    expect(report.exitCode, report.text).toBe(1);
    expect(report.text).toContain(`PROBLEM STATE.CORRUPT sessions/${FAULT_SESSION}/folds/${victim.id}.json`);
    expect(report.text).toContain('not well formed');
  }, 60_000);
});

/** Keys a Keyv store lost (an LRU eviction, a partial flush): one record and one blob of another fold. */
async function evictSome(store: FoldStore, records: readonly FoldRecord[]) {
  const { child } = nestedPair(records);
  const other = records.find((record) => !withAncestors(records, child.id).includes(record.id))!;
  const sha = entryBlobOf(other);
  const keyv = (store as KeyvFoldStore).connection.keyv;
  expect(await keyv.delete(foldKey(FAULT_SESSION, child.id))).toBe(true);
  expect(await keyv.delete(blobKey(sha))).toBe(true);
  return { child, other, sha };
}

function expectEvictionsNamed(text: string, evicted: { child: FoldRecord; other: FoldRecord; sha: string }) {
  expect(text).toContain(`PROBLEM STORE.NOT_FOUND session/${FAULT_SESSION}/fold/${evicted.child.id}`);
  expect(text).toContain(`PROBLEM STORE.NOT_FOUND blob/${evicted.sha}`);
  expect(text).toContain(`fold ${evicted.other.id} needs blob ${evicted.sha}`);
}

test('sqlite: evicted keys of a record and a blob', async () => {
  const path = join(scratch, 'evicted.sqlite');
  const store = createSqliteFoldStore({ path });
  const before = await foldedSession(store);
  const evicted = await evictSome(store, before.records);
  await store.dispose();
  const report = await verify([path]);
  expect(report.exitCode, report.text).toBe(1);
  expectEvictionsNamed(report.text, evicted);
}, 60_000);

const redis = serverUrl(REDIS_URL_VARIABLE);
if (redis.url === undefined) {
  if (redis.required)
    test('redis server is available for verify tests', () => {
      throw new Error(redis.missingReason);
    });
} else {
  const url = redis.url;
  test('redis: keys evicted from the real server', async () => {
    const namespace = runNamespace();
    const store = new KeyvFoldStore({ keyv: redisKeyv(url, namespace), ownsConnection: true });
    const before = await foldedSession(store);
    const evicted = await evictSome(store, before.records);
    await store.dispose();
    const report = await verify([url, '--namespace', namespace]);
    expect(report.exitCode, report.text).toBe(1);
    expectEvictionsNamed(report.text, evicted);
  }, 60_000);
}
