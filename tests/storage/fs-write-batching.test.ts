import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/storage-fs/fs-fold-store.ts';
import type { EngineState } from '../../ports/fold-records.ts';
import { sampleEngineState, sampleFoldRecord } from '../../testing/store-fixtures.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * The fs store keeps a commit durable before it returns and takes every other state write off
 * the request path: a state that lists no new fold is written in the background (newest
 * wins), and whoever reads the state next (or disposes the store) sees the newest one.
 */
const scratch = await scratchDirectory('fs-batching');
afterAll(() => removeScratch(scratch), 60_000);

const revisionOnDisk = (store: FsFoldStore, sessionId: string) => (JSON.parse(readFileSync(store.layout.statePath(sessionId), 'utf8')) as { body: EngineState }).body.revision;

describe('fs store state writes', () => {
  test('a commit is on disk when saveState returns; a change that lists no new fold is written after, newest wins', async () => {
    const store = new FsFoldStore({ root: join(scratch, 'store') });
    const sessionId = 'session-batching';
    const record = sampleFoldRecord();
    for (const part of record.parts) if (part.kind === 'entry') await store.putBlob(`bytes of ${part.entryId}`);
    await store.putFold(sessionId, record);
    const base: EngineState = { ...sampleEngineState(sessionId, 1), foldIds: [record.id] };
    await store.saveState(sessionId, base);
    expect(revisionOnDisk(store, sessionId)).toBe(1);

    // Marks and counters only: the call returns before the write lands.
    await store.saveState(sessionId, { ...base, revision: 2 });
    expect(revisionOnDisk(store, sessionId)).toBe(1);
    await store.saveState(sessionId, { ...base, revision: 3 });
    await store.saveState(sessionId, { ...base, revision: 4 });
    expect((await store.loadState(sessionId))?.revision).toBe(4);
    expect(revisionOnDisk(store, sessionId)).toBe(4);

    // A state listing a new fold is a commit: written, after anything still queued, before the call returns.
    const second = sampleFoldRecord();
    await store.putFold(sessionId, second);
    await store.saveState(sessionId, { ...base, revision: 5 });
    await store.saveState(sessionId, { ...base, revision: 6, foldIds: [record.id, second.id] });
    expect(revisionOnDisk(store, sessionId)).toBe(6);

    await store.saveState(sessionId, { ...base, revision: 7, foldIds: [record.id, second.id] });
    await store.dispose();
    expect(revisionOnDisk(store, sessionId)).toBe(7);
  });
});
