import { basename, dirname, join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { sampleEngineState, sampleFoldRecord } from '../../testing/store-fixtures.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * The fs store's commit: blob files are created without an fsync each, then synced in one
 * pass (bytes, then directory entries) before the first record that names them is created;
 * records are synced the same way before the state that lists them. Every open, fsync and
 * link the store makes is logged in order here (node:fs is wrapped, nothing faked: the calls
 * still reach the disk).
 */
const { fsLog, holdRecordSyncs } = vi.hoisted(() => ({ fsLog: [] as string[], holdRecordSyncs: { on: false } }));
const stateTempSynced = () => fsLog.some((entry) => entry.startsWith('sync ') && entry.includes('.tmp-state.json'));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const pathOf = new Map<number, string>();
  const openSync = ((...args: Parameters<typeof actual.openSync>) => {
    const descriptor = actual.openSync(...args);
    const path = args[0];
    pathOf.set(descriptor, String(path));
    return descriptor;
  }) as typeof actual.openSync;
  const fsync = ((descriptor: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    const path = pathOf.get(descriptor) ?? `fd ${descriptor}`;
    fsLog.push(`sync ${path}`);
    void (async () => {
      // Hold a record's fsync (up to a second) until the state's temp file has been synced.
      if (holdRecordSyncs.on && path.includes('/folds/')) {
        for (let waited = 0; waited < 1_000 && !stateTempSynced(); waited += 10)
          await new Promise((resolve) => setTimeout(resolve, 10));
        fsLog.push(`synced ${path} ${stateTempSynced() ? 'after' : 'before'} the state's temp file`);
      }
      actual.fsync(descriptor, callback);
    })();
  }) as typeof actual.fsync;
  const linkSync = ((existing: string, target: string) => {
    actual.linkSync(existing, target);
    fsLog.push(`link ${String(target)}`);
  }) as typeof actual.linkSync;
  const renameSync = ((from: string, to: string) => {
    actual.renameSync(from, to);
    fsLog.push(`rename ${String(to)}`);
  }) as typeof actual.renameSync;
  const wrapped = { openSync, fsync, linkSync, renameSync };
  return { ...actual, ...wrapped, default: { ...actual, ...wrapped } };
});

const { FsFoldStore } = await import('../../adapters/backends/storage-fs/fs-fold-store.ts');
const scratch = await scratchDirectory('fs-sync-order');
afterAll(() => removeScratch(scratch), 60_000);

const isTemp = (path: string) => basename(path).startsWith('.tmp-');

describe('fs store: a commit syncs its files in one pass before anything names them', () => {
  test('blobs are synced (files, then directories) before the record is created, records before the state', async () => {
    const store = new FsFoldStore({ root: join(scratch, 'store') });
    const sessionId = 'session-sync-order';
    const blobs = Array.from({ length: 6 }, (_, index) => `entry ${index} `.repeat(500));
    fsLog.length = 0;
    const paths: string[] = [];
    for (const blob of blobs) paths.push(store.layout.blobPath(await store.putBlob(blob)));
    const record = sampleFoldRecord();
    await store.putFold(sessionId, record);
    const recordPath = store.layout.foldPath(sessionId, record.id);
    await store.saveState(sessionId, { ...sampleEngineState(sessionId, 1), foldIds: [record.id] });
    const statePath = store.layout.statePath(sessionId);

    const at = (entry: string) => {
      const position = fsLog.indexOf(entry);
      expect(position, `${entry} is in the log`).toBeGreaterThanOrEqual(0);
      return position;
    };
    // No blob's bytes are synced as it is written: no temp file of a blob is ever fsynced.
    expect(
      fsLog.filter(
        (entry) => entry.startsWith('sync ') && isTemp(entry.slice(5)) && dirname(entry.slice(5)).includes('blobs'),
      ),
    ).toEqual([]);
    const lastBlobLink = Math.max(...paths.map((path) => at(`link ${path}`)));
    const blobSyncs = paths.map((path) => at(`sync ${path}`));
    const blobDirectorySyncs = [...new Set(paths.map(dirname))].map((directory) => at(`sync ${directory}`));
    const recordLink = at(`link ${recordPath}`);
    // One pass: every blob is linked before the first is synced, every file before any directory, all before the record.
    expect(Math.min(...blobSyncs)).toBeGreaterThan(lastBlobLink);
    expect(Math.min(...blobDirectorySyncs)).toBeGreaterThan(Math.max(...blobSyncs));
    expect(recordLink).toBeGreaterThan(Math.max(...blobDirectorySyncs));
    // The record is synced (bytes, then its directory) before the state that lists it appears.
    const recordSync = at(`sync ${recordPath}`);
    const recordDirectorySync = at(`sync ${dirname(recordPath)}`);
    expect(recordSync).toBeGreaterThan(recordLink);
    expect(recordDirectorySync).toBeGreaterThan(recordSync);
    expect(at(`rename ${statePath}`)).toBeGreaterThan(recordDirectorySync);
    await store.dispose();
  });

  test("the state's temp file is written and synced while the records sync; it is renamed only after them", async () => {
    const store = new FsFoldStore({ root: join(scratch, 'overlap') });
    const sessionId = 'session-overlap';
    const record = sampleFoldRecord();
    await store.putFold(sessionId, record);
    fsLog.length = 0;
    holdRecordSyncs.on = true;
    try {
      await store.saveState(sessionId, { ...sampleEngineState(sessionId, 1), foldIds: [record.id] });
    } finally {
      holdRecordSyncs.on = false;
    }
    const recordPath = store.layout.foldPath(sessionId, record.id);
    expect(fsLog, 'the record sync waited for the state temp file and saw it synced').toContain(
      `synced ${recordPath} after the state's temp file`,
    );
    const rename = fsLog.indexOf(`rename ${store.layout.statePath(sessionId)}`);
    expect(rename).toBeGreaterThan(fsLog.indexOf(`sync ${dirname(recordPath)}`));
    await store.dispose();
  });

  test('a blob deleted before the barrier (gc of an unreferenced blob) does not fail the next write', async () => {
    const store = new FsFoldStore({ root: join(scratch, 'deleted') });
    const sha256 = await store.putBlob('short-lived bytes');
    expect(await store.deleteBlob(sha256, { touchedBefore: Date.now() + 60_000 })).toBe('deleted');
    const record = sampleFoldRecord();
    await expect(store.putFold('session-deleted', record)).resolves.toBeUndefined();
    await store.dispose();
  });
});
