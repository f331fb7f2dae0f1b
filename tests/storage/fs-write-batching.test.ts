import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { FsStateWriter } from '../../adapters/backends/storage-fs/fs-state-writer.ts';
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

const revisionOnDisk = (store: FsFoldStore, sessionId: string) =>
  (JSON.parse(readFileSync(store.layout.statePath(sessionId), 'utf8')) as { body: EngineState }).body.revision;

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

describe('fs state writer: a reader waits for the states handed over before it, not for the stream after', () => {
  test('loadState-style settle returns once the newest earlier state is written, while later saves keep coming', async () => {
    const writer = new FsStateWriter();
    const sessionId = 'session-stream';
    const gates: (() => void)[] = [];
    const written: number[] = [];
    const write = async (_id: string, state: EngineState) => {
      await new Promise<void>((resolve) => gates.push(resolve));
      written.push(state.revision);
    };
    const turns = async () => {
      for (let turn = 0; turn < 10; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    };
    const base: EngineState = { ...sampleEngineState(sessionId, 1), foldIds: [] };
    // The first state is written in the foreground (nothing written yet in this process).
    const first = writer.save(sessionId, base, write);
    await turns();
    gates.shift()!();
    await first;
    // A stream: each save is taken off the caller's path.
    await writer.save(sessionId, { ...base, revision: 2 }, write);
    await writer.save(sessionId, { ...base, revision: 3 }, write);
    let settled = false;
    const settling = writer.settle(sessionId).then(() => (settled = true));
    await turns();
    gates.shift()!(); // revision 2 lands; 3 is next
    await turns();
    await writer.save(sessionId, { ...base, revision: 4 }, write);
    gates.shift()!(); // revision 3 lands: everything handed over before settle() is written
    await turns();
    expect(written).toEqual([1, 2, 3]);
    expect(settled, 'the reader is not held for revision 4, handed over after it asked').toBe(true);
    await settling;
    while (gates.length > 0) {
      gates.shift()!();
      await turns();
    }
    await writer.settle(sessionId);
    expect(written).toEqual([1, 2, 3, 4]);
  });
});
