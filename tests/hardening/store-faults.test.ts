import { chmod, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { blobKey, foldKey } from '../../adapters/backends/storage-keyv/keyv-records.ts';
import { wrapFold } from '../../adapters/backends/storage-shared/stored-records.ts';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import { rebuildSessionState } from '../../application/recovery/rebuild-session-state.ts';
import { REDIS_URL_VARIABLE, serverUrl } from '../storage/support/server-urls.ts';
import { redisKeyv, runNamespace, scratchDirectory } from '../storage/support/storage-backends.ts';
import { openRuntime } from '../support/drive-session.ts';
import {
  expectBytesGone,
  expectFoldingGoesOn,
  expectSurvives,
  FAULT_SESSION,
  foldedSession,
  foldsNeedingBlob,
  nestedPair,
  peekText,
  withAncestors,
} from './support/store-faults.ts';

/**
 * Ordinary store accidents on the fs store: one record deleted, one record replaced by a
 * well-hashed body of the wrong shape, a whole folds/ directory gone. None may lock the
 * session out: it opens with what it can verify and names the rest.
 */
const scratch = await scratchDirectory('store-faults');
afterAll(() => rm(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }), 60_000);

async function freshFsSession(label: string) {
  const root = join(scratch, label);
  const store = new FsFoldStore({ root });
  const before = await foldedSession(store);
  return { root, store, before };
}

describe('fs store faults: the session opens with what it can verify', () => {
  test('a deleted record of a child inside a kept parent', async () => {
    const { store, before } = await freshFsSession('child-deleted');
    const { parent, child } = nestedPair(before.records);
    await unlink(store.layout.foldPath(FAULT_SESSION, child.id));
    const runtime = await expectSurvives(
      new FsFoldStore({ root: store.layout.root }),
      before,
      withAncestors(before.records, child.id),
    );
    expect(withAncestors(before.records, child.id)).toContain(parent.id);
    const status = await runtime.act({ action: 'status' });
    expect(status.text).toContain(child.id);
    expect(status.text).toContain('lost folds');
  });

  test('a deleted record of a parent whose children are kept', async () => {
    const { store, before } = await freshFsSession('parent-deleted');
    const { parent, child } = nestedPair(before.records);
    await unlink(store.layout.foldPath(FAULT_SESSION, parent.id));
    const runtime = await expectSurvives(
      new FsFoldStore({ root: store.layout.root }),
      before,
      withAncestors(before.records, parent.id),
    );
    expect(runtime.view.lattice.record(child.id)).toBeDefined();
  });

  test('a record re-hashed around a body of the wrong shape', async () => {
    const { store, before } = await freshFsSession('wrong-shape');
    const victim = before.records[0]!;
    const path = store.layout.foldPath(FAULT_SESSION, victim.id);
    const malformed = { ...victim, parts: 'not a list' } as unknown as typeof victim;
    await chmod(path, 0o644);
    await writeFile(path, JSON.stringify(wrapFold(FAULT_SESSION, malformed)));
    await expectSurvives(
      new FsFoldStore({ root: store.layout.root }),
      before,
      withAncestors(before.records, victim.id),
    );
  });

  test('the whole folds/ directory removed', async () => {
    const { store, before } = await freshFsSession('folds-removed');
    await rm(store.layout.foldsDirectory(FAULT_SESSION), { recursive: true, force: true });
    await expectSurvives(
      new FsFoldStore({ root: store.layout.root }),
      before,
      before.records.map((record) => record.id),
    );
  });
});

describe('faults while the runtime is live, a lost state, and Keyv stores', () => {
  test('fs: a blob deleted while the runtime runs', async () => {
    const { store, before } = await freshFsSession('blob-live');
    const victim = before.records.find((record) => record.parts.some((part) => part.kind === 'entry'))!;
    const part = victim.parts.find((candidate) => candidate.kind === 'entry')!;
    if (part.kind !== 'entry') throw new Error('no entry part');
    await unlink(store.layout.blobPath(part.sha256));
    const gone = foldsNeedingBlob(before.records, part.sha256);
    for (const foldId of gone) await expectBytesGone(before.runtime, foldId);
    for (const [foldId, text] of before.peeks)
      if (!gone.includes(foldId)) expect(await peekText(before.runtime, foldId), foldId).toBe(text);
    await expectFoldingGoesOn(before.runtime, before.session);
    await store.loadState(FAULT_SESSION);
  });

  test('fs: a state lost with its records kept — the session opens, folds on, and repair brings every fold back', async () => {
    const { store, before } = await freshFsSession('state-lost');
    await unlink(store.layout.statePath(FAULT_SESSION));
    const reopened = new FsFoldStore({ root: store.layout.root });
    const { runtime } = await openRuntime({ store: reopened });
    await expectFoldingGoesOn(runtime, before.session);
    await reopened.loadState(FAULT_SESSION);
    await unlink(store.layout.statePath(FAULT_SESSION));
    const report = await rebuildSessionState(reopened, FAULT_SESSION, await recordIds(reopened));
    expect(report.written).toBe(true);
    const repaired = await openRuntime({ store: new FsFoldStore({ root: store.layout.root }) });
    await repaired.runtime.project(before.session.entries);
    const standing = [...repaired.runtime.view.lattice.allRecords()];
    expect(standing.length).toBeGreaterThan(0);
    for (const record of standing)
      if (before.peeks.has(record.id))
        expect(await peekText(repaired.runtime, record.id)).toBe(before.peeks.get(record.id));
  });

  test('sqlite: a record key evicted', async () => {
    const path = join(scratch, 'evicted.sqlite');
    const store = createSqliteFoldStore({ path });
    const before = await foldedSession(store);
    const { child } = nestedPair(before.records);
    await (store as KeyvFoldStore).connection.keyv.delete(foldKey(FAULT_SESSION, child.id));
    await expectSurvives(store, before, withAncestors(before.records, child.id));
    await store.dispose();
  });

  const redis = serverUrl(REDIS_URL_VARIABLE);
  if (redis.url === undefined) {
    if (redis.required)
      test('redis server is available for fault tests', () => {
        throw new Error(redis.missingReason);
      });
    return;
  }
  const url = redis.url;
  test('redis: a record and a blob evicted from the real server', async () => {
    const store = new KeyvFoldStore({ keyv: redisKeyv(url, runNamespace()), ownsConnection: true });
    try {
      const before = await foldedSession(store);
      const { child } = nestedPair(before.records);
      const lost = withAncestors(before.records, child.id);
      const other = before.records.find(
        (record) => !lost.includes(record.id) && record.parts.some((part) => part.kind === 'entry'),
      )!;
      const part = other.parts.find((candidate) => candidate.kind === 'entry')!;
      if (part.kind !== 'entry') throw new Error('no entry part');
      const keyv = store.connection.keyv;
      expect(await keyv.delete(foldKey(FAULT_SESSION, child.id))).toBe(true);
      expect(await keyv.delete(blobKey(part.sha256))).toBe(true);
      const gone = foldsNeedingBlob(before.records, part.sha256).filter((foldId) => !lost.includes(foldId));
      await expectSurvives(store, before, lost, { bytesGone: gone });
    } finally {
      await store.dispose();
    }
  });

  test('redis: the namespace flushed under a live session', async () => {
    const store = new KeyvFoldStore({ keyv: redisKeyv(url, runNamespace()), ownsConnection: true });
    try {
      const before = await foldedSession(store);
      await store.connection.keyv.clear();
      for (const record of before.records.slice(0, 3)) await expectBytesGone(before.runtime, record.id);
      await expectFoldingGoesOn(before.runtime, before.session);
      const { runtime } = await openRuntime({ store });
      await expectFoldingGoesOn(runtime, before.session);
    } finally {
      await store.dispose();
    }
  });
});

/** Every fold record id filed under the session (what `pi-fold repair` lists from the keys). */
async function recordIds(store: FsFoldStore): Promise<string[]> {
  const names = await readdir(store.layout.foldsDirectory(FAULT_SESSION));
  return names.filter((name) => name.endsWith('.json')).map((name) => name.slice(0, -'.json'.length));
}
