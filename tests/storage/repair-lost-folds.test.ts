import { unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { forestViolations, pairingViolations } from '../../testing/window-checks.ts';
import {
  expectFoldingGoesOn,
  FAULT_SESSION,
  foldedSession,
  nestedPair,
  peekText,
  withAncestors,
} from '../hardening/support/store-faults.ts';
import { openRuntime } from '../support/drive-session.ts';
import { runCliCaptured } from './support/cli-capture.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * `pi-fold repair` where the state itself reads back: one that lists a fold whose record is
 * gone, and one that is gone while every record is kept. Both used to be "nothing to repair".
 */
const scratch = await scratchDirectory('repair-lost');
afterAll(() => removeScratch(scratch), 60_000);

describe('pi-fold repair beyond a damaged state', () => {
  test('an intact state listing a deleted record: the fold is named as lost, the rest kept', async () => {
    const root = join(scratch, 'record-deleted');
    const store = new FsFoldStore({ root });
    const before = await foldedSession(store);
    const { child } = nestedPair(before.records);
    await unlink(store.layout.foldPath(FAULT_SESSION, child.id));
    const lost = withAncestors(before.records, child.id);

    const repaired = await runCliCaptured(['repair', root, '--session', FAULT_SESSION, '--json']);
    expect(repaired.exitCode, repaired.error).toBe(0);
    const report = JSON.parse(repaired.out) as {
      unrecoverable: { foldId: string; reason: string }[];
      written: boolean;
    };
    expect(report.written).toBe(true);
    expect(report.unrecoverable.map((fold) => fold.foldId).sort()).toEqual([...lost].sort());
    expect(report.unrecoverable.find((fold) => fold.foldId === child.id)!.reason).toContain('missing');
    const state = await new FsFoldStore({ root }).loadState(FAULT_SESSION);
    expect(state!.lostFolds!.map((fold) => fold.foldId).sort()).toEqual([...lost].sort());
    // Pending marks and the rest of the state are kept, and a second repair finds nothing to do.
    expect(state!.marks.length).toBe((await store.loadState(FAULT_SESSION))!.marks.length);
    expect((await runCliCaptured(['repair', root, '--session', FAULT_SESSION])).out).toContain('nothing to repair');
    expect((await runCliCaptured(['verify', root])).exitCode).toBe(0);

    const { runtime } = await openRuntime({ store: new FsFoldStore({ root }) });
    const refusal = await runtime.act({ action: 'peek', id: child.id }).catch((error: unknown) => error);
    expect((refusal as Error).message).toContain(`fold ${child.id} is lost`);
    await runtime.project(before.session.entries);
    for (const foldId of before.peeks.keys())
      if (!lost.includes(foldId)) expect(await peekText(runtime, foldId)).toBe(before.peeks.get(foldId));
  }, 60_000);

  test('a state lost with its records kept: repair brings every fold back', async () => {
    const root = join(scratch, 'state-lost');
    const store = new FsFoldStore({ root });
    const before = await foldedSession(store);
    await unlink(store.layout.statePath(FAULT_SESSION));
    const repaired = await runCliCaptured(['repair', root, '--session', FAULT_SESSION]);
    expect(repaired.exitCode, repaired.error).toBe(0);
    expect(repaired.out).toContain('its state is gone');
    expect(repaired.out).toContain(`rebuilt the state from ${before.records.length} verified fold(s)`);
    const { runtime } = await openRuntime({ store: new FsFoldStore({ root }) });
    const first = await runtime.project(before.session.entries);
    expect(pairingViolations(first.messages)).toEqual([]);
    for (const [foldId, text] of before.peeks) expect(await peekText(runtime, foldId), foldId).toBe(text);
    await expectFoldingGoesOn(runtime, before.session);
    await store.loadState(FAULT_SESSION);
  }, 60_000);

  test('a state lost, folds landed again over the same spans, then repaired: one forest', async () => {
    const root = join(scratch, 'state-lost-refolded');
    const store = new FsFoldStore({ root });
    const before = await foldedSession(store);
    await unlink(store.layout.statePath(FAULT_SESSION));
    const fresh = await openRuntime({ store: new FsFoldStore({ root }) });
    await fresh.runtime.project(before.session.entries);
    await store.loadState(FAULT_SESSION);
    await unlink(store.layout.statePath(FAULT_SESSION));
    const repaired = await runCliCaptured(['repair', root, '--session', FAULT_SESSION, '--json']);
    expect(repaired.exitCode, repaired.error).toBe(0);
    const { runtime } = await openRuntime({ store: new FsFoldStore({ root }) });
    const first = await runtime.project(before.session.entries);
    expect(pairingViolations(first.messages)).toEqual([]);
    const standing = [...runtime.view.lattice.allRecords()];
    expect(standing.length).toBeGreaterThan(0);
    const positions = new Map(before.session.entries.map((entry, position) => [entry.id, position]));
    expect(forestViolations(standing, (entryId) => positions.get(entryId))).toEqual([]);
    for (const record of runtime.view.lattice.allRecords()) await peekText(runtime, record.id);
    await expectFoldingGoesOn(runtime, before.session);
    await store.loadState(FAULT_SESSION);
  }, 60_000);
});
