import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SessionManager } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { PiSessionRegistry } from '../../adapters/hosts/pi/session-registry.ts';
import { sampleEngineState } from '../../testing/store-fixtures.ts';

/** A registry reading a settings file that does not exist (defaults apply). */
function registry(options: ConstructorParameters<typeof PiSessionRegistry>[0] = {}): PiSessionRegistry {
  return new PiSessionRegistry({
    settingsPath: join(mkdtempSync(join(tmpdir(), 'pi-fold-settings-')), 'settings.json'),
    ...options,
  });
}

describe('pi: the stores a session gets come from the composition root', () => {
  it('sessions of one session directory share the filesystem store under <sessionDir>/pi-fold, which outlives each session', async () => {
    const work = mkdtempSync(join(tmpdir(), 'pi-fold-stores-'));
    const sessionDirectory = join(work, 'sessions');
    const sessions = registry();
    const first = await sessions.forSession(SessionManager.create(work, sessionDirectory));
    const second = await sessions.forSession(SessionManager.create(work, sessionDirectory));
    expect(first.sessionId).not.toBe(second.sessionId);
    const store = first.composed.ports.backingFoldStore;
    expect(store).toBeInstanceOf(FsFoldStore);
    expect((store as FsFoldStore).layout.root).toBe(join(sessionDirectory, 'pi-fold'));
    expect(second.composed.ports.backingFoldStore).toBe(store);
    expect(second.evidenceStore).toBe(first.evidenceStore);
    expect(first.evidenceStore).toBe(first.composed.ports.evidenceStore);

    await sessions.close(first.sessionId);
    // The next session of the directory is opened on the same store instance.
    const third = await sessions.forSession(SessionManager.create(work, sessionDirectory));
    expect(third.composed.ports.backingFoldStore).toBe(store);
    await sessions.closeAll();
  });

  it('sessions Pi does not persist share one memory store, so a session closed and reopened finds its state', async () => {
    const sessions = registry();
    const manager = SessionManager.inMemory();
    const folding = await sessions.forSession(manager);
    const store = folding.composed.ports.backingFoldStore;
    expect(store).toBeInstanceOf(MemoryFoldStore);
    // A state as a session of 7 requests would leave it (no folds, one pin).
    await store.saveState(folding.sessionId, { ...sampleEngineState(folding.sessionId, 7), foldIds: [], inserts: [] });
    await sessions.close(folding.sessionId);
    const reopened = await sessions.forSession(manager);
    expect(reopened.runtime).not.toBe(folding.runtime);
    expect(reopened.composed.ports.backingFoldStore).toBe(store);
    const status = await reopened.runtime.act({ action: 'status' });
    expect(JSON.stringify(status.data)).toContain('"requests":7');
    await sessions.closeAll();
  });

  it('a store the host passes is used as it is, and the default store is not built for it', async () => {
    const work = mkdtempSync(join(tmpdir(), 'pi-fold-stores-'));
    const mine = new MemoryFoldStore();
    const sessions = registry({ foldStore: mine });
    const folding = await sessions.forSession(SessionManager.create(work, join(work, 'sessions')));
    expect(folding.composed.ports.backingFoldStore).toBe(mine);
    await sessions.closeAll();
    // Closing the session leaves the host's store open.
    await mine.putBlob('still usable');
  });
});
