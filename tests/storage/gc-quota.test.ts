import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { QuotaFoldStore } from '../../application/retention/quota-fold-store.ts';
import { collectGarbage } from '../../application/retention/store-gc.ts';
import { createFoldRuntime } from '../../composition/create-fold-runtime.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { providerTokens } from '../support/drive-session.ts';
import { localGcBackends } from './support/gc-backends.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

const scratch = await scratchDirectory('gc-quota');
afterAll(() => removeScratch(scratch), 120_000);

async function blobShas(store: FoldStore): Promise<string[]> {
  const shas: string[] = [];
  for await (const blob of store.listBlobs!()) shas.push(blob.sha256);
  return shas.sort();
}

for (const backend of localGcBackends) {
  describe(`size caps on ${backend.name}`, () => {
    test('a blob past the session cap is refused with STORE.QUOTA, naming the cap, the size and gc; nothing is written', async () => {
      const inner = backend.fresh(scratch);
      try {
        const capped = new QuotaFoldStore(inner, 'capped-session', { sessionCapBytes: 1000 });
        await capped.putBlob('a'.repeat(600));
        // The same bytes again are not new to the session: free.
        await capped.putBlob('a'.repeat(600));
        const before = await blobShas(inner);
        const refusal = capped.putBlob('b'.repeat(600));
        await expect(refusal).rejects.toMatchObject({
          code: 'STORE.QUOTA',
          details: { scope: 'session', usedBytes: 600, addedBytes: 600, capBytes: 1000 },
        });
        await expect(capped.putBlob('b'.repeat(600))).rejects.toThrow(
          /holds 600 bytes.*cap of 1000 \(sessionCapBytes\).*pi-fold gc/,
        );
        expect(await blobShas(inner)).toEqual(before);
        await capped.putBlob('c'.repeat(400));
      } finally {
        await inner.dispose?.();
      }
    });

    test('the store cap counts every session and sees what earlier sessions left behind', async () => {
      const inner = backend.fresh(scratch);
      try {
        await new QuotaFoldStore(inner, 'first', { storeCapBytes: 1000 }).putBlob('x'.repeat(700));
        const second = new QuotaFoldStore(inner, 'second', { storeCapBytes: 1000 });
        // Bytes the store already holds cost the store nothing.
        await second.putBlob('x'.repeat(700));
        await expect(second.putBlob('y'.repeat(400))).rejects.toMatchObject({
          code: 'STORE.QUOTA',
          details: { scope: 'store', usedBytes: 700, capBytes: 1000 },
        });
        expect(await inner.hasBlob(sha256Hex('y'.repeat(400)))).toBe(false);
      } finally {
        await inner.dispose?.();
      }
    });
  });
}

describe('a commit refused by a cap', () => {
  test("a session's share counts the folds an earlier runtime committed", async () => {
    const storeRoot = join(scratch, 'runtime-restart');
    const session = new SyntheticSession({ seed: 12, resultChars: [3_000, 9_000] });
    const drive = async (composed: Awaited<ReturnType<typeof createFoldRuntime>>, steps: number) => {
      const warnings: string[] = [];
      // Stop at the first refusal: with commits refused the window only grows.
      for (let step = 0; step < steps && !warnings.some((line) => line.includes('STORE.QUOTA')); step += 1) {
        session.step();
        const result = await composed.runtime.project(session.entries);
        composed.runtime.recordUsage({
          input: providerTokens(result.ledger.totalChars),
          cacheRead: 0,
          cacheWrite: 0,
          output: 100,
        });
        warnings.push(...result.warnings);
      }
      return warnings;
    };
    const first = await createFoldRuntime({
      sessionId: 'restart',
      store: 'fs',
      storeRoot,
      sessionCapBytes: Number.POSITIVE_INFINITY,
      settings: { providerInputBudget: 30_000 },
    });
    await drive(first, 30);
    const committed = new Map<string, number>();
    for (const record of await first.runtime.view.foldStore.listFolds('restart')) {
      for (const part of record.parts) if (part.kind === 'entry') committed.set(part.sha256, part.chars);
    }
    await first.dispose();
    const committedBytes = [...committed.values()].reduce((sum, chars) => sum + chars, 0);
    expect(committedBytes).toBeGreaterThan(0);
    // Room for nothing new: the next commit's first new blob must be refused.
    const second = await createFoldRuntime({
      sessionId: 'restart',
      store: 'fs',
      storeRoot,
      sessionCapBytes: committedBytes + 1,
      settings: { providerInputBudget: 30_000 },
    });
    try {
      const warnings = await drive(second, 30);
      expect(warnings.find((line) => line.includes('STORE.QUOTA'))).toContain(`holds ${committedBytes} bytes`);
    } finally {
      await second.dispose();
    }
  }, 120_000);

  test('is skipped through the runtime: the window stays whole, nothing unreadable is committed, gc takes the leftovers', async () => {
    const storeRoot = join(scratch, 'runtime-quota');
    // Smaller than any tool result of this session: the first commit cannot fit.
    const composed = await createFoldRuntime({
      sessionId: 'quota-run',
      store: 'fs',
      storeRoot,
      sessionCapBytes: 2_000,
      settings: { providerInputBudget: 30_000 },
    });
    try {
      const session = new SyntheticSession({ seed: 11, resultChars: [3_000, 9_000] });
      let refused: Awaited<ReturnType<typeof composed.runtime.project>> | undefined;
      for (let step = 0; step < 60 && refused === undefined; step += 1) {
        session.step();
        const result = await composed.runtime.project(session.entries);
        composed.runtime.recordUsage({
          input: providerTokens(result.ledger.totalChars),
          cacheRead: 0,
          cacheWrite: 0,
          output: 100,
        });
        if (result.warnings.some((warning) => warning.includes('STORE.QUOTA'))) refused = result;
      }
      expect(refused, 'no commit ever reached the cap').toBeDefined();
      const warning = refused!.warnings.find((line) => line.includes('STORE.QUOTA'))!;
      expect(warning).toContain('commit was skipped');
      expect(warning).toContain('cap of 2000 (sessionCapBytes)');
      expect(warning).toContain('pi-fold gc');
      // The window is whole: every entry, in order, sent as itself.
      const sent = refused!.messages
        .filter((message) => message.kind === 'entry')
        .map((message) => (message as { entryId: string }).entryId);
      expect(sent).toEqual(session.entries.map((entry) => entry.id));
      // Nothing was committed, in memory or in the store.
      const runtime = composed.runtime;
      expect(runtime.view.memory.foldIds).toEqual([]);
      expect(await runtime.view.foldStore.listFolds('quota-run')).toEqual([]);
      expect((await runtime.view.foldStore.loadState('quota-run'))?.foldIds ?? []).toEqual([]);
    } finally {
      await composed.dispose();
    }
    // Blobs the skipped commit put before the refusal belong to no fold: gc may take them all.
    const store = new FsFoldStore({ root: storeRoot });
    const report = await collectGarbage(store, { graceMs: 0, now: () => Date.now() + 1 });
    expect(report.deleted.count).toBe(report.scanned.count);
    expect(report.referencedBlobs).toBe(0);
  }, 120_000);
});
