import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { createFoldRuntime } from '../../composition/create-fold-runtime.ts';
import { createStoreScope } from '../../composition/store-scope.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

const scratch = await scratchDirectory('composition-scopes');
afterAll(() => removeScratch(scratch), 120_000);

describe('the session graph: a child container per session, stores shared through a scope', () => {
  test('sessions of one store scope share its store; each has its own capped view; the scope, not a session, closes it', async () => {
    const sqlitePath = join(scratch, 'shared.sqlite');
    const scope = await createStoreScope({ store: 'sqlite', sqlitePath });
    const first = await createFoldRuntime({ sessionId: 'scope-a', scope });
    const second = await createFoldRuntime({ sessionId: 'scope-b', scope });
    const shared = first.ports.backingFoldStore;
    expect(second.ports.backingFoldStore).toBe(shared);
    expect(second.ports.evidenceStore).toBe(first.ports.evidenceStore);
    expect(shared.name).toBe('sqlite');
    // The engine sees the session's own view: the shared store behind this session's size caps.
    expect(first.runtime.view.foldStore).toBe(first.ports.foldStore);
    expect(first.ports.foldStore).not.toBe(second.ports.foldStore);

    await first.dispose();
    await second.dispose();
    // Closing its sessions leaves the scope's store open for the next one.
    const sha256 = await shared.putBlob('written after both sessions closed');
    expect(await shared.hasBlob(sha256)).toBe(true);
    await scope.dispose();
    await expect(shared.loadState('scope-b')).rejects.toMatchObject({ code: 'STORE.READ_FAILED' });
  });

  test('a scope builds nothing a session does not ask for: with both stores passed in, its database file never appears', async () => {
    const sqlitePath = join(scratch, 'never-opened.sqlite');
    const scope = await createStoreScope({ store: 'sqlite', sqlitePath });
    const store = new MemoryFoldStore();
    const evidence = new MemoryEvidenceStore();
    const composed = await createFoldRuntime({
      sessionId: 'own-stores',
      scope,
      store,
      evidenceStore: evidence,
    });
    expect(composed.ports.backingFoldStore).toBe(store);
    expect(composed.ports.evidenceStore).toBe(evidence);
    await composed.dispose();
    await scope.dispose();
    expect(existsSync(sqlitePath)).toBe(false);
  });

  test('a session that names its own store kind inside a scope builds and closes that store itself', async () => {
    const scope = await createStoreScope({ store: 'memory' });
    const sqlitePath = join(scratch, 'own-kind.sqlite');
    const composed = await createFoldRuntime({
      sessionId: 'own-kind',
      scope,
      store: 'sqlite',
      sqlitePath,
    });
    const built = composed.ports.backingFoldStore;
    expect(built.name).toBe('sqlite');
    expect(composed.ports.evidenceStore.name).toBe('sqlite-evidence');
    await composed.dispose();
    await expect(built.loadState('own-kind')).rejects.toMatchObject({ code: 'STORE.READ_FAILED' });
    await scope.dispose();
  });

  test('a scope refuses what it cannot build, before any store opens', async () => {
    await expect(createStoreScope({ store: 'mongodb' as 'fs' })).rejects.toMatchObject({
      code: 'SETTINGS.INVALID',
      message: expect.stringContaining("'fs', 'sqlite', 'memory'"),
    });
    await expect(createStoreScope({ store: 'memory', sqlitePath: join(scratch, 'x.sqlite') })).rejects.toMatchObject({
      code: 'SETTINGS.INVALID',
      message: expect.stringContaining('sqlitePath'),
    });
  });
});
