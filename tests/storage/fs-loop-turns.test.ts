import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/storage-fs/fs-fold-store.ts';
import { FsEvidenceStore } from '../../adapters/storage-fs/fs-evidence-store.ts';
import { storeBlobVerified } from '../../core/blob-prewrites.ts';
import { sha256Hex } from '../../core/hashing.ts';
import { forEachBounded } from '../../core/bounded-parallel.ts';
import { sampleEngineState, sampleFoldRecord } from '../../testing/store-fixtures.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * How many turns of the host's event loop the fs store's writes wait for. In a host such as
 * Pi the loop turns only a few times per request, so a write that needs one turn per call
 * (every promise-based fs call settles on a later turn) falls behind by whole requests. Here
 * a stand-in host keeps the loop busy with one callback per turn (`setImmediate`, run once
 * after each poll phase) and counts the turns that pass while a commit's writes run: only
 * the fsyncs may wait (a few passes in all), whatever the number of files.
 */
const scratch = await scratchDirectory('fs-loop-turns');
afterAll(() => removeScratch(scratch), 60_000);

/** Counts event-loop turns while `work` runs; each turn also spins `busyMs` like a busy host. */
async function turnsDuring(work: () => Promise<void>, busyMs = 0): Promise<number> {
  let turns = 0;
  let running = true;
  const turn = () => {
    if (!running) return;
    turns += 1;
    for (const until = performance.now() + busyMs; performance.now() < until; );
    setImmediate(turn);
  };
  setImmediate(turn);
  try {
    await work();
  } finally {
    running = false;
  }
  return turns;
}

const BLOBS = 40;
/**
 * Each turn of the stand-in host spins this long, as a busy host's turns take milliseconds:
 * an fsync (about a millisecond on a local disk) then ends within a turn or two, so the
 * count is of waits, not of the disk's speed.
 */
const BUSY_MS = 5;
const blobTexts = (seed: string) => Array.from({ length: BLOBS }, (_, index) => `${seed} entry ${index} `.repeat(1_200));

describe('fs store: a commit waits for the disk, not for the event loop', () => {
  test(`${BLOBS} blobs put and read back, a record and the commit's state take a few loop turns, not one per call`, async () => {
    const store = new FsFoldStore({ root: join(scratch, 'commit') });
    const sessionId = 'session-turns';
    const texts = blobTexts('commit');
    const record = sampleFoldRecord();
    const turns = await turnsDuring(async () => {
      // As the commit writes the blobs not written ahead: side by side, each read back verified.
      await forEachBounded(
        texts.map((bytes, index) => ({ sha256: sha256Hex(bytes), bytes, entryId: `entry-${index}` })),
        8,
        (blob) => storeBlobVerified(store, blob),
      );
      await store.putFold(sessionId, record);
      await store.saveState(sessionId, { ...sampleEngineState(sessionId, 1), foldIds: [record.id] });
    }, BUSY_MS);
    // Blobs: no turn (their syncs are deferred). Record: the blob files' fsyncs, then their
    // directories'. State: its temp file's fsync beside the record's, then the directory's.
    expect(turns, `turns waited for ${BLOBS} blobs, a record and a state`).toBeLessThanOrEqual(12);
    for (const bytes of texts) expect(Buffer.from(await store.getBlob(sha256Hex(bytes))).toString('utf8')).toBe(bytes);
    expect((await store.loadState(sessionId))?.foldIds).toEqual([record.id]);
    await store.dispose();
  });

  test('an artifact write waits for its two fsyncs only', async () => {
    const evidence = new FsEvidenceStore({ root: join(scratch, 'evidence') });
    const texts = blobTexts('artifact').slice(0, 10);
    const turns = await turnsDuring(async () => {
      for (const text of texts) await evidence.put('session-turns', text);
    }, BUSY_MS);
    // The first put measures the session's usage once (a listing); then two fsyncs each,
    // with room for a slow disk's fsync to outlast one busy turn.
        expect(turns, 'turns waited for 10 artifacts, one after another').toBeLessThanOrEqual(10 * 3 + 4);
    for (const text of texts) expect(Buffer.from(await evidence.get('session-turns', sha256Hex(text))).toString('utf8')).toBe(text);
  });
});
