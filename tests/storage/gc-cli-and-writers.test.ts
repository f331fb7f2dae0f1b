import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import type { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import { createFoldRuntime } from '../../composition/create-fold-runtime.ts';
import { readFoldSource } from '../../core/store/fold-source.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { providerTokens } from '../support/drive-session.ts';
import { runCliCaptured } from './support/cli-capture.ts';
import { concurrentWriterScenario, dryRunThenCollectScenario, type WithStore } from './support/gc-scenarios.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';
import { directorySnapshot, keyvSnapshot } from './support/store-snapshots.ts';

const scratch = await scratchDirectory('gc-cli');
afterAll(() => removeScratch(scratch), 120_000);

describe('pi-fold gc on a directory store', () => {
  test('--dry-run reports what it would free and leaves every file as it was; gc then frees exactly that', async () => {
    const root = join(scratch, 'fs-dry');
    await dryRunThenCollectScenario(
      async (use) => use(new FsFoldStore({ root })),
      () => directorySnapshot(root),
      [root],
    );
    await expectOnlyStatelessSessions(root);
  });

  test('a blob a writer re-puts while gc runs is kept; an equally old one nobody wants is deleted', async () => {
    await concurrentWriterScenario(new FsFoldStore({ root: join(scratch, 'fs-writer') }));
  });
});

describe('pi-fold gc on a SQLite store', () => {
  test('--dry-run changes no key or value; gc then frees exactly the garbage', async () => {
    const path = join(scratch, 'dry.sqlite');
    const withStore: WithStore = async (use) => {
      const store = createSqliteFoldStore({ path });
      try {
        return await use(store);
      } finally {
        await store.dispose();
      }
    };
    await dryRunThenCollectScenario(withStore, (store) => keyvSnapshot(store as KeyvFoldStore), [path]);
    await expectOnlyStatelessSessions(path);
  });

  test('a blob a writer re-puts while gc runs is kept', async () => {
    const store = createSqliteFoldStore({ path: join(scratch, 'writer.sqlite') });
    try {
      await concurrentWriterScenario(store);
    } finally {
      await store.dispose();
    }
  });
});

test('gc refuses bad usage with exit 2 and names the problem', async () => {
  expect((await runCliCaptured(['gc'])).exitCode).toBe(2);
  expect((await runCliCaptured(['gc', scratch, '--grace-minutes', '-1'])).error).toContain(
    '--grace-minutes must be a non-negative number',
  );
  expect((await runCliCaptured(['gc', scratch, '--sessions-older-than', '3'])).error).toContain(
    'unknown option --sessions-older-than',
  );
  const notAStore = await runCliCaptured(['gc', import.meta.dirname]);
  expect(notAStore.exitCode).toBe(2);
  expect(notAStore.error).toContain('holds no pi-fold store');
});

test('after gc, a real session reopens and every fold it committed reads back verified', async () => {
  const storeRoot = join(scratch, 'runtime-gc');
  const sessionId = 'gc-runtime';
  const settings = { providerInputBudget: 30_000 };
  const session = new SyntheticSession({ seed: 21, resultChars: [3_000, 9_000] });
  const first = await createFoldRuntime({ sessionId, settings, store: 'fs', storeRoot });
  for (let step = 0; step < 40; step += 1) {
    session.step();
    const result = await first.runtime.project(session.entries);
    first.runtime.recordUsage({
      input: providerTokens(result.ledger.totalChars),
      cacheRead: 0,
      cacheWrite: 0,
      output: 100,
    });
  }
  const foldIds = [...first.runtime.view.memory.foldIds];
  await first.dispose();
  expect(foldIds.length).toBeGreaterThan(0);
  // Garbage beside the session: what skipped commits and removed sessions leave behind.
  const raw = new FsFoldStore({ root: storeRoot });
  for (let index = 0; index < 5; index += 1) await raw.putBlob(`orphaned bytes ${index}`);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const gc = await runCliCaptured(['gc', storeRoot, '--grace-minutes', '0', '--json']);
  expect(gc.exitCode, gc.error).toBe(0);
  expect(JSON.parse(gc.out).deleted.count).toBe(5);
  const second = await createFoldRuntime({ sessionId, settings, store: 'fs', storeRoot });
  try {
    expect(second.runtime.view.memory.foldIds).toEqual(foldIds);
    for (const foldId of foldIds) {
      const entries = await readFoldSource(
        second.runtime.view.foldStore,
        (id) => second.runtime.view.lattice.record(id),
        foldId,
      );
      for (const entry of entries)
        expect(entry.bytes).toBe(session.entries.find((candidate) => candidate.id === entry.entryId)!.bytes);
    }
    await second.runtime.project(session.entries);
  } finally {
    await second.dispose();
  }
  expect((await runCliCaptured(['verify', storeRoot])).exitCode).toBe(0);
}, 120_000);

/**
 * After gc the store verifies but for what the scenario built on purpose: sessions with fold
 * records and no state, each a problem `repair` would act on. Nothing gc did is one.
 */
async function expectOnlyStatelessSessions(target: string): Promise<void> {
  const verified = await runCliCaptured(['verify', target]);
  const problems = verified.out.split('\n').filter((line) => line.startsWith('PROBLEM'));
  for (const problem of problems) expect(problem).toContain('fold record(s) and no state');
  expect(verified.exitCode).toBe(problems.length === 0 ? 0 : 1);
}
