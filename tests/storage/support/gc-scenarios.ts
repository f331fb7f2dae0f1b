import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { collectGarbage } from '../../../application/retention/store-gc.ts';
import { readFoldSource } from '../../../core/store/fold-source.ts';
import { sha256Hex } from '../../../core/util/hashing.ts';
import type { FoldRecord } from '../../../ports/fold-records.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';
import { runCliCaptured } from './cli-capture.ts';
import { backdateBlob } from './gc-clock.ts';
import { buildStore, firstUnreadableFold } from './gc-store-builder.ts';

const TWO_HOURS = 2 * 60 * 60 * 1000;

function singleEntryFold(text: string, sha256: string): FoldRecord {
  return {
    schemaVersion: 1,
    id: `fold_${randomBytes(12).toString('hex')}`,
    kind: 'tool',
    origin: 'runtime',
    firstEntryId: 'late-entry',
    lastEntryId: 'late-entry',
    parts: [{ kind: 'entry', entryId: 'late-entry', sha256, chars: text.length }],
    sourceSha256: sha256Hex(`${text}\n`),
    sourceChars: text.length,
    entryCount: 1,
    brief: 'a fold landed while gc ran',
    provenance: 'deterministic',
    epoch: 1,
  };
}

/**
 * A writer commits while gc runs: after gc has scanned every reference and listed an old,
 * unreferenced blob as collectable, the writer puts those same bytes again and lands a fold
 * record naming them (what a commit does). gc must keep the blob (the re-put refreshed it),
 * while an equally old blob nobody re-put is deleted.
 */
export async function concurrentWriterScenario(store: FoldStore): Promise<void> {
  const sessionId = `gc-writer-${randomBytes(4).toString('hex')}`;
  const neededText = `bytes a writer needs again ${randomBytes(8).toString('hex')}`;
  const staleText = `bytes nobody needs ${randomBytes(8).toString('hex')}`;
  const needed = await store.putBlob(neededText);
  const stale = await store.putBlob(staleText);
  await backdateBlob(store, needed, TWO_HOURS);
  await backdateBlob(store, stale, TWO_HOURS);
  const record = singleEntryFold(neededText, needed);
  let wroteDuringGc = false;
  const report = await collectGarbage(store, {
    graceMs: 10 * 60 * 1000,
    onProgress: async (progress) => {
      if (progress.phase !== 'delete' || progress.done !== 0) return;
      // Both blobs are on gc's delete list by now; the writer commits in between.
      await store.putBlob(neededText);
      await store.putFold(sessionId, record);
      wroteDuringGc = true;
    },
  });
  expect(wroteDuringGc).toBe(true);
  expect(report.refreshed.count).toBeGreaterThanOrEqual(1);
  const entries = await readFoldSource(store, (id) => (id === record.id ? record : undefined), record.id);
  expect(entries.map((entry) => entry.bytes)).toEqual([neededText]);
  expect(await store.hasBlob(stale)).toBe(false);
}

/** Run `use` on a store opened for it and closed after (the CLI opens its own in between). */
export type WithStore = <Result>(use: (store: FoldStore) => Promise<Result>) => Promise<Result>;

/**
 * `pi-fold gc --dry-run` on a store with folds and garbage: exit 0, the report names what
 * would be freed, and the store is unchanged (`snapshot` before and after are equal). Then a
 * real `pi-fold gc` frees exactly that and every fold still reads back.
 */
export async function dryRunThenCollectScenario(
  withStore: WithStore,
  snapshot: (store: FoldStore) => Promise<string>,
  cliTarget: readonly string[],
): Promise<{ freedBytes: number; freedBlobs: number }> {
  const built = await withStore((store) =>
    buildStore(
      store,
      {
        pool: ['alpha entry', 'beta entry', 'gamma entry', 'shared entry'],
        sessions: [
          {
            trees: [
              { parts: [{ entry: 0 }, { child: { parts: [{ entry: 1 }, { child: { parts: [{ entry: 3 }] } }] } }] },
            ],
            withState: true,
          },
          { trees: [{ parts: [{ entry: 2 }, { entry: 3 }] }], withState: false },
        ],
        garbage: ['orphan one', 'orphan two', 'orphan three'],
      },
      `gc-dry-${randomBytes(4).toString('hex')}`,
    ),
  );
  // Let the clock pass the garbage's write time, so a zero grace may take it.
  await new Promise((resolve) => setTimeout(resolve, 20));
  const before = await withStore(snapshot);
  const dry = await runCliCaptured(['gc', ...cliTarget, '--dry-run', '--grace-minutes', '0', '--json']);
  expect(dry.exitCode, dry.error).toBe(0);
  const dryReport = JSON.parse(dry.out);
  expect(dryReport.collectable).toEqual({ count: built.garbageOnly.size, bytes: built.garbageBytes });
  expect(dryReport.deleted).toEqual({ count: 0, bytes: 0 });
  expect(await withStore(snapshot)).toBe(before);
  const text = await runCliCaptured(['gc', ...cliTarget, '--dry-run', '--grace-minutes', '0']);
  expect(text.out).toContain(`would free ${built.garbageOnly.size} blob(s), ${built.garbageBytes} bytes`);
  expect(await withStore(snapshot)).toBe(before);

  const real = await runCliCaptured(['gc', ...cliTarget, '--grace-minutes', '0', '--json']);
  expect(real.exitCode, real.error).toBe(0);
  const realReport = JSON.parse(real.out);
  expect(realReport.deleted).toEqual({ count: built.garbageOnly.size, bytes: built.garbageBytes });
  await withStore(async (store) => {
    expect(await firstUnreadableFold(store, built)).toBeUndefined();
    for (const sha256 of built.garbageOnly) expect(await store.hasBlob(sha256)).toBe(false);
  });
  // A default gc right after keeps anything within its hour of grace and finds nothing else.
  const again = await runCliCaptured(['gc', ...cliTarget]);
  expect(again.exitCode).toBe(0);
  expect(again.out).toContain('freed 0 blob(s)');
  return { freedBytes: realReport.deleted.bytes, freedBlobs: realReport.deleted.count };
}
