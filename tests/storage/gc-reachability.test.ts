import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { collectGarbage } from '../../application/retention/store-gc.ts';
import { retentionConformance } from '../../testing/retention-conformance.ts';
import { localGcBackends } from './support/gc-backends.ts';
import { backdateBlob } from './support/gc-clock.ts';
import { collectAndCheckReachability } from './support/gc-property.ts';
import { buildStore, storePlan } from './support/gc-store-builder.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

const scratch = await scratchDirectory('gc-reachability');
afterAll(() => removeScratch(scratch), 120_000);

/**
 * The gc safety property on every local backend: for random sessions of folds nested inside
 * consolidations over entries shared between sessions, plus garbage, a gc (no grace) leaves
 * every fold of every session readable byte for byte through the engine's verified read, and
 * removes exactly the blobs nothing references.
 */
for (const backend of localGcBackends) {
  describe(`gc on ${backend.name}`, () => {
    test('never deletes a referenced blob, and deletes every unreferenced one', async () => {
      await fc.assert(
        fc.asyncProperty(storePlan, async (plan) => {
          const store = backend.fresh(scratch);
          try {
            const built = await buildStore(store, plan, `gc-${backend.name}`);
            // Everything above was written before this instant; nothing is within the grace.
            const report = await collectAndCheckReachability(store, built);
            expect(report.referencedBlobs).toBe(built.referenced.size);
            const left = [];
            for await (const blob of store.listBlobs!()) left.push(blob.sha256);
            expect(left.sort()).toEqual([...built.referenced].sort());
          } finally {
            await store.dispose?.();
          }
        }),
        { numRuns: backend.runs },
      );
    }, 240_000);

    test('a gc that cannot read a reference deletes nothing', async () => {
      const store = backend.fresh(scratch);
      try {
        const built = await buildStore(
          store,
          {
            pool: ['kept'],
            sessions: [{ trees: [{ parts: [{ entry: 0 }] }], withState: false }],
            garbage: ['garbage'],
          },
          'gc-broken',
        );
        // State naming a fold that has no record: the store is damaged, so gc must stop.
        const { EngineMemory } = await import('../../core/state/engine-memory.ts');
        const memory = new EngineMemory('gc-broken-0');
        memory.listFold('fold_ffffffffffffffffffffffff');
        await store.saveState('gc-broken-0', memory.snapshot([], []));
        await expect(collectGarbage(store, { graceMs: 0, now: () => Date.now() + 1 })).rejects.toMatchObject({
          code: 'STORE.NOT_FOUND',
        });
        for (const sha256 of built.garbageOnly) expect(await store.hasBlob(sha256)).toBe(true);
      } finally {
        await store.dispose?.();
      }
    });
  });
}

// The retention contract gc and the caps rely on, from the suite shipped in pi-fold/testing.
for (const backend of localGcBackends) {
  retentionConformance({ test }, () => backend.fresh(scratch), {
    label: `${backend.name} retention`,
    ...(backend.name === 'memory' ? {} : { ageBlob: backdateBlob }),
  });
}
