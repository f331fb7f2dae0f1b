import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { sampleEngineState, sampleFoldRecord } from '../../testing/store-fixtures.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * What the fs store waits on the event loop for. Every asynchronous fs call settles on a later
 * turn of the host's loop, and a busy host such as Pi turns it only a few times per request, so
 * a write made of awaited calls falls behind by whole requests (docs/pi.md, "Reply → request
 * latency"). The store makes its small-file calls synchronously; the only calls it waits for
 * are fsyncs, issued in a few parallel passes whatever the number of files. Every asynchronous
 * call (callback or promise form) is counted here through wrapped `node:fs` and
 * `node:fs/promises` modules (the calls still reach the disk). Counting calls rather than
 * timing them keeps the test independent of the disk's speed and the machine's load.
 */
const { asyncCalls } = vi.hoisted(() => ({
  asyncCalls: { byName: new Map<string, number>(), fsyncsInFlight: 0, fsyncPasses: 0 },
}));

vi.mock('node:fs', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs')>();
  const counted: Record<string, unknown> = {};
  for (const name of [
    'open',
    'close',
    'read',
    'write',
    'readFile',
    'writeFile',
    'stat',
    'lstat',
    'link',
    'unlink',
    'rename',
    'mkdir',
    'realpath',
    'utimes',
    'readdir',
    'fdatasync',
  ] as const) {
    const original = actual[name] as (...args: unknown[]) => unknown;
    counted[name] = (...args: unknown[]) => {
      asyncCalls.byName.set(name, (asyncCalls.byName.get(name) ?? 0) + 1);
      return original(...args);
    };
  }
  counted.fsync = (descriptor: number, callback: (error: NodeJS.ErrnoException | null) => void) => {
    asyncCalls.byName.set('fsync', (asyncCalls.byName.get('fsync') ?? 0) + 1);
    // A pass: fsyncs issued while others are still in flight wait together.
    if (asyncCalls.fsyncsInFlight === 0) asyncCalls.fsyncPasses += 1;
    asyncCalls.fsyncsInFlight += 1;
    actual.fsync(descriptor, (error) => {
      asyncCalls.fsyncsInFlight -= 1;
      callback(error);
    });
  };
  return { ...actual, ...counted, default: { ...actual, ...counted } };
});

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const counted: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(actual)) {
    if (typeof value !== 'function' || name === 'constants') continue;
    counted[name] = (...args: unknown[]) => {
      asyncCalls.byName.set(`promises.${name}`, (asyncCalls.byName.get(`promises.${name}`) ?? 0) + 1);
      return (value as (...inner: unknown[]) => unknown)(...args);
    };
  }
  return { ...actual, ...counted, default: { ...actual, ...counted } };
});

const { FsFoldStore } = await import('../../adapters/backends/storage-fs/fs-fold-store.ts');
const { FsEvidenceStore } = await import('../../adapters/backends/storage-fs/fs-evidence-store.ts');
const { storeBlobVerified } = await import('../../core/commit/apply/blob-prewrites.ts');
const { sha256Hex } = await import('../../core/util/hashing.ts');
const { forEachBounded } = await import('../../core/util/bounded-parallel.ts');

const scratch = await scratchDirectory('fs-loop-turns');
afterAll(() => removeScratch(scratch), 60_000);

/** The asynchronous fs calls `work` makes, by name, and the parallel passes its fsyncs come in. */
async function asyncCallsDuring(
  work: () => Promise<void>,
): Promise<{ calls: Record<string, number>; fsyncPasses: number }> {
  asyncCalls.byName.clear();
  asyncCalls.fsyncPasses = 0;
  await work();
  return { calls: Object.fromEntries(asyncCalls.byName), fsyncPasses: asyncCalls.fsyncPasses };
}

const BLOBS = 40;
const blobTexts = (seed: string) =>
  Array.from({ length: BLOBS }, (_, index) => `${seed} entry ${index} `.repeat(1_200));

describe('fs store: a commit waits for the disk, not for the event loop', () => {
  test(`${BLOBS} blobs put and read back, a record and the commit's state: only fsyncs are awaited, in a few passes`, async () => {
    const store = new FsFoldStore({ root: join(scratch, 'commit') });
    const sessionId = 'session-turns';
    const texts = blobTexts('commit');
    const record = sampleFoldRecord();
    const { calls, fsyncPasses } = await asyncCallsDuring(async () => {
      // As a commit writes the blobs not written ahead: side by side, each read back verified.
      const blobs = texts.map((bytes, index) => ({ sha256: sha256Hex(bytes), bytes, entryId: `entry-${index}` }));
      await forEachBounded(blobs, 8, (blob) => storeBlobVerified(store, blob));
      await store.putFold(sessionId, record);
      await store.saveState(sessionId, { ...sampleEngineState(sessionId, 1), foldIds: [record.id] });
    });
    const { fsync, ...others } = calls;
    expect(others, 'asynchronous fs calls other than fsync').toEqual({});
    // The blobs' files and directories, the record's, and the state's temp file and directory.
    expect(fsync, 'one fsync per file and directory made durable').toBeGreaterThanOrEqual(BLOBS + 4);
    // Blob files, then blob directories, then the record's (beside the state's temp file), then the state's directory.
    expect(fsyncPasses, 'passes of fsyncs the commit waited for').toBeLessThanOrEqual(5);
    for (const bytes of texts) expect(Buffer.from(await store.getBlob(sha256Hex(bytes))).toString('utf8')).toBe(bytes);
    expect((await store.loadState(sessionId))?.foldIds).toEqual([record.id]);
    await store.dispose();
  });

  test('an artifact write waits for its two fsyncs only', async () => {
    const evidence = new FsEvidenceStore({ root: join(scratch, 'evidence') });
    const texts = blobTexts('artifact').slice(0, 10);
    // The first put of a session measures what the session already holds (a directory listing, once).
    await evidence.put('session-turns', 'first artifact');
    const { calls, fsyncPasses } = await asyncCallsDuring(async () => {
      for (const text of texts) await evidence.put('session-turns', text);
    });
    expect(calls, 'asynchronous fs calls of ten artifacts, one after another').toEqual({ fsync: 20 });
    expect(fsyncPasses, 'its bytes, then its directory entry, for each').toBe(20);
    for (const text of texts)
      expect(Buffer.from(await evidence.get('session-turns', sha256Hex(text))).toString('utf8')).toBe(text);
  });
});
