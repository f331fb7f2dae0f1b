import { readFile, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import type { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { stateKey } from '../../adapters/backends/storage-keyv/keyv-records.ts';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { serialize } from '../../testing/window-checks.ts';
import { driveSession, openRuntime } from '../support/drive-session.ts';
import { runCliCaptured } from './support/cli-capture.ts';
import { flipByteInFile, removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * A damaged engine state used to lock its session out for good. `pi-fold repair` rebuilds it
 * from the fold records and blobs the store verifies: the session opens again, every verified
 * fold is kept and shown, and what could not be recovered is named.
 */
const scratch = await scratchDirectory('repair');
afterAll(() => removeScratch(scratch), 60_000);
const SESSION = 'session-1';

/** A real session with several folds; returns their ids, the entries and the folds shown. */
async function foldedSession(store: FoldStore) {
  const driven = await driveSession({ seed: 11, steps: 70, store });
  // The fs store writes some states in the background; loading waits for them, so the damage below is the last word.
  await store.loadState(SESSION);
  const foldIds = [...driven.runtime.view.lattice.allRecords()].map((record) => record.id).sort();
  const shown = driven.runtime.view.visibleFolds.map((placed) => placed.record.id).sort();
  expect(shown.length).toBeGreaterThan(2);
  return { entries: driven.session.entries, foldIds, shown, runtime: driven.runtime };
}

/** The session refuses to open and says how to get back in. */
async function expectLockedOut(store: FoldStore): Promise<void> {
  const refusal = await openRuntime({ store }).catch((error: unknown) => error);
  expect(refusal).toMatchObject({
    code: expect.stringMatching(/^(STORE\.HASH_MISMATCH|STORE\.SCHEMA_VERSION|STATE\.CORRUPT)$/),
  });
  expect((refusal as Error).message).toContain(`pi-fold repair <store> --session ${SESSION}`);
}

/** After the repair the session opens, and the same entries show the same folds. */
async function expectReopensWith(
  store: FoldStore,
  entries: Parameters<Awaited<ReturnType<typeof openRuntime>>['runtime']['project']>[0],
  shown: readonly string[],
) {
  const { runtime } = await openRuntime({ store });
  const result = await runtime.project(entries);
  expect(runtime.view.visibleFolds.map((placed) => placed.record.id).sort()).toEqual([...shown].sort());
  const window = serialize(result.messages);
  for (const id of shown) expect(window).toContain(id);
  return runtime;
}

describe('pi-fold repair', () => {
  test('fs: a truncated state file — dry run first, then every fold comes back', async () => {
    const root = join(scratch, 'fs-truncated');
    const store = new FsFoldStore({ root });
    const session = await foldedSession(store);
    const statePath = store.layout.statePath(SESSION);
    await truncate(statePath, Math.floor((await readFile(statePath)).length / 2));
    await expectLockedOut(store);

    const damaged = await readFile(statePath);
    const dryRun = await runCliCaptured(['repair', root, '--session', SESSION, '--dry-run']);
    expect(dryRun.exitCode, dryRun.error).toBe(0);
    expect(dryRun.out).toContain(`would rebuild the state from ${session.foldIds.length} verified fold(s)`);
    expect(await readFile(statePath)).toEqual(damaged);

    const repaired = await runCliCaptured(['repair', root, '--session', SESSION]);
    expect(repaired.exitCode, repaired.error).toBe(0);
    expect(repaired.out).toContain('not valid JSON');
    expect(repaired.out).toContain(`rebuilt the state from ${session.foldIds.length} verified fold(s)`);
    const runtime = await expectReopensWith(store, session.entries, session.shown);
    expect([...runtime.view.lattice.allRecords()].map((record) => record.id).sort()).toEqual(session.foldIds);
    // The repaired store verifies clean, and a second repair finds nothing to do.
    expect((await runCliCaptured(['verify', root])).exitCode).toBe(0);
    expect((await runCliCaptured(['repair', root, '--session', SESSION])).out).toContain('nothing to repair');
  }, 60_000);

  test('fs: a tampered state and one damaged blob — that fold (and any fold nesting it) is named, the rest kept', async () => {
    const root = join(scratch, 'fs-tampered');
    const store = new FsFoldStore({ root });
    const session = await foldedSession(store);
    const statePath = store.layout.statePath(SESSION);
    const text = await readFile(statePath, 'utf8');
    await writeFile(statePath, text.replace('"revision":', '"revision":1'));
    await expectLockedOut(store);
    const victim = session.runtime.view.lattice.record(session.shown[0]!)!;
    const entryPart = victim.parts.find((part) => part.kind === 'entry')!;
    if (entryPart.kind !== 'entry') throw new Error('the fold has no entry part');
    await flipByteInFile(store.layout.blobPath(entryPart.sha256), 10);

    const repaired = await runCliCaptured(['repair', root, '--session', SESSION, '--json']);
    expect(repaired.exitCode, repaired.error).toBe(0);
    const report = JSON.parse(repaired.out) as {
      recovered: string[];
      unrecoverable: { foldId: string; reason: string }[];
    };
    const lost = report.unrecoverable.map((fold) => fold.foldId);
    expect(lost).toContain(victim.id);
    expect(report.unrecoverable.find((fold) => fold.foldId === victim.id)!.reason).toContain(entryPart.sha256);
    // Exactly the damaged fold and the folds that contain it are left out; every other verified fold is kept.
    const containing = new Set([victim.id]);
    for (
      let parent = session.runtime.view.lattice.parentOf(victim.id);
      parent !== undefined;
      parent = session.runtime.view.lattice.parentOf(parent)
    )
      containing.add(parent);
    expect(lost.sort()).toEqual([...containing].sort());
    expect(report.recovered.sort()).toEqual(session.foldIds.filter((id) => !containing.has(id)));
    const { runtime } = await openRuntime({ store });
    await runtime.project(session.entries);
    for (const id of report.recovered) expect(runtime.view.lattice.record(id)).toBeDefined();
    expect(runtime.view.lattice.record(victim.id)).toBeUndefined();
  }, 60_000);

  test('sqlite: a tampered state value is rebuilt the same way', async () => {
    const path = join(scratch, 'repair.sqlite');
    const store = createSqliteFoldStore({ path });
    const session = await foldedSession(store);
    const keyv = (store as KeyvFoldStore).connection.keyv;
    const envelope = (await keyv.get(stateKey(SESSION))) as { body: { revision: number } };
    await keyv.set(stateKey(SESSION), {
      ...envelope,
      body: { ...envelope.body, revision: envelope.body.revision + 7 },
    });
    await expectLockedOut(store);
    await store.dispose();
    const repaired = await runCliCaptured(['repair', path, '--session', SESSION]);
    expect(repaired.exitCode, repaired.error).toBe(0);
    expect(repaired.out).toContain(`rebuilt the state from ${session.foldIds.length} verified fold(s)`);
    const reopened = createSqliteFoldStore({ path });
    try {
      await expectReopensWith(reopened, session.entries, session.shown);
    } finally {
      await reopened.dispose();
    }
  }, 60_000);

  test('refuses without --session, and names an intact state as nothing to repair', async () => {
    const root = join(scratch, 'fs-intact');
    await foldedSession(new FsFoldStore({ root }));
    const missing = await runCliCaptured(['repair', root]);
    expect(missing.exitCode).toBe(2);
    expect(missing.error).toContain('--session <id> names the session to repair');
    const intact = await runCliCaptured(['repair', root, '--session', SESSION]);
    expect(intact.exitCode).toBe(0);
    expect(intact.out).toContain('nothing to repair');
  }, 60_000);
});
