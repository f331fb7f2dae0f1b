import { chmod, rm, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/storage-fs/fs-fold-store.ts';
import { wrapFold } from '../../adapters/storage-shared/stored-records.ts';
import { removeScratch, scratchDirectory } from '../storage/support/storage-backends.ts';
import { expectSurvives, FAULT_SESSION, foldedSession, nestedPair, withAncestors } from './support/store-faults.ts';

/**
 * Ordinary store accidents on the fs store: one record deleted, one record replaced by a
 * well-hashed body of the wrong shape, a whole folds/ directory gone. None may lock the
 * session out: it opens with what it can verify and names the rest.
 */
const scratch = await scratchDirectory('store-faults');
afterAll(() => removeScratch(scratch), 60_000);

async function freshFsSession(label: string) {
  const root = join(scratch, label);
  const store = new FsFoldStore({ root });
  const before = await foldedSession(store);
  return { root, store, before };
}

describe('fs store faults: the session opens with what it can verify', () => {
  test('a deleted record of a child inside a kept parent', async () => {
    const { store, before } = await freshFsSession('child-deleted');
    const { parent, child } = nestedPair(before.records);
    await unlink(store.layout.foldPath(FAULT_SESSION, child.id));
    const runtime = await expectSurvives(
      new FsFoldStore({ root: store.layout.root }),
      before,
      withAncestors(before.records, child.id),
    );
    expect(withAncestors(before.records, child.id)).toContain(parent.id);
    const status = await runtime.act({ action: 'status' });
    expect(status.text).toContain(child.id);
    expect(status.text).toContain('lost folds');
  });

  test('a deleted record of a parent whose children are kept', async () => {
    const { store, before } = await freshFsSession('parent-deleted');
    const { parent, child } = nestedPair(before.records);
    await unlink(store.layout.foldPath(FAULT_SESSION, parent.id));
    const runtime = await expectSurvives(
      new FsFoldStore({ root: store.layout.root }),
      before,
      withAncestors(before.records, parent.id),
    );
    expect(runtime.view.lattice.record(child.id)).toBeDefined();
  });

  test('a record re-hashed around a body of the wrong shape', async () => {
    const { store, before } = await freshFsSession('wrong-shape');
    const victim = before.records[0]!;
    const path = store.layout.foldPath(FAULT_SESSION, victim.id);
    const malformed = { ...victim, parts: 'not a list' } as unknown as typeof victim;
    await chmod(path, 0o644);
    await writeFile(path, JSON.stringify(wrapFold(FAULT_SESSION, malformed)));
    await expectSurvives(
      new FsFoldStore({ root: store.layout.root }),
      before,
      withAncestors(before.records, victim.id),
    );
  });

  test('the whole folds/ directory removed', async () => {
    const { store, before } = await freshFsSession('folds-removed');
    await rm(store.layout.foldsDirectory(FAULT_SESSION), { recursive: true, force: true });
    await expectSurvives(
      new FsFoldStore({ root: store.layout.root }),
      before,
      before.records.map((record) => record.id),
    );
  });
});
