import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { recordLevels } from '../../core/commit/apply/store-writes.ts';
import type { CommitPlan } from '../../core/commit/plan/planner.ts';
import type { FoldRecord } from '../../ports/fold-records.ts';
import { sampleEngineState, sampleFoldRecord } from '../../testing/store-fixtures.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * The fs store's round trips per write: a directory is checked (realpath before and after a
 * mkdir) once per store, not once per file, and a directory removed since is noticed and
 * made again. mkdir and realpath are counted through a wrapped node:fs (the calls
 * still reach the disk).
 */
const { calls } = vi.hoisted(() => ({ calls: { mkdir: 0, realpath: 0 } }));
vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const mkdirSync = ((...args: Parameters<typeof actual.mkdirSync>) => {
    calls.mkdir += 1;
    return actual.mkdirSync(...args);
  }) as typeof actual.mkdirSync;
  const realpathSync = ((...args: Parameters<typeof actual.realpathSync>) => {
    calls.realpath += 1;
    return actual.realpathSync(...args);
  }) as typeof actual.realpathSync;
  return { ...actual, mkdirSync, realpathSync, default: { ...actual, mkdirSync, realpathSync } };
});

const { FsFoldStore } = await import('../../adapters/backends/storage-fs/fs-fold-store.ts');
const { FsEvidenceStore } = await import('../../adapters/backends/storage-fs/fs-evidence-store.ts');
const scratch = await scratchDirectory('fs-round-trips');
afterAll(() => removeScratch(scratch), 60_000);

const reset = () => {
  calls.mkdir = 0;
  calls.realpath = 0;
};

describe('fs store: one directory check per directory, not per file', () => {
  test('blobs, records, states and artifacts written into directories already checked make no mkdir or realpath call', async () => {
    const root = join(scratch, 'store');
    const store = new FsFoldStore({ root });
    const evidence = new FsEvidenceStore({ root });
    const sessionId = 'session-round-trips';
    // Blobs whose names share their two-hex directory: 40 blobs, one directory each at most.
    const blobs = Array.from({ length: 40 }, (_, index) => `blob number ${index} `.repeat(50));
    reset();
    const shas = await Promise.all(blobs.map((blob) => store.putBlob(blob)));
    const directories = new Set(shas.map((sha) => dirname(store.layout.blobPath(sha))));
    expect(calls.mkdir, 'one mkdir per new directory').toBe(directories.size);
    await store.putFold(sessionId, sampleFoldRecord());
    await store.saveState(sessionId, sampleEngineState(sessionId, 1));
    await evidence.put(sessionId, 'an artifact');

    // The same directories again: a second commit of the same shape checks nothing.
    reset();
    for (const blob of blobs) await store.putBlob(blob);
    await store.putFold(sessionId, sampleFoldRecord());
    await store.saveState(sessionId, { ...sampleEngineState(sessionId, 2), foldIds: [] });
    await evidence.put(sessionId, 'another artifact');
    expect(calls).toEqual({ mkdir: 0, realpath: 0 });
    await store.dispose();
  });

  test('a directory removed after it was checked is made (and checked) again by the next write', async () => {
    const root = join(scratch, 'removed');
    const store = new FsFoldStore({ root });
    const sessionId = 'session-removed';
    await store.putFold(sessionId, sampleFoldRecord());
    await store.dispose();
    await rm(store.layout.sessionDirectory(sessionId), { recursive: true });
    reset();
    const record = sampleFoldRecord();
    await store.putFold(sessionId, record);
    expect(calls.mkdir).toBeGreaterThan(0);
    expect(await store.getFold(sessionId, record.id)).toEqual(record);
    await store.dispose();
  });
});

describe("a commit's records go side by side, level by level", () => {
  const fold = (record: FoldRecord) => ({ record, collapseOnly: false });
  test('children before the parent that names them; unrelated folds share a level', () => {
    const leafA = sampleFoldRecord();
    const leafB = sampleFoldRecord();
    const parent = sampleFoldRecord({
      parts: [
        { kind: 'fold', foldId: leafA.id },
        { kind: 'fold', foldId: leafB.id },
      ],
    });
    const grandparent = sampleFoldRecord({ parts: [{ kind: 'fold', foldId: parent.id }] });
    const other = sampleFoldRecord();
    // Listed parent first: the levels come from what each record names, not from the list's order.
    const plan = {
      folds: [
        fold(grandparent),
        fold(parent),
        fold(leafA),
        fold(other),
        fold(leafB),
        { record: sampleFoldRecord(), collapseOnly: true },
      ],
    } as unknown as CommitPlan;
    const levels = recordLevels(plan).map((level) => level.map((record) => record.id).sort());
    expect(levels).toEqual([[leafA.id, other.id, leafB.id].sort(), [parent.id], [grandparent.id]]);
  });
});
