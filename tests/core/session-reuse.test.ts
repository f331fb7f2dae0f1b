import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { serialize } from '../../testing/window-checks.ts';
import { driveSession, openRuntime } from '../support/drive-session.ts';

/**
 * A session id reused by another conversation in a new process. The synthetic host numbers
 * its entries by position (u000001, a000002, …), so a second conversation reuses the first
 * one's entry ids with other bytes: the worst case, where placing a stored fold by id alone
 * would show the first conversation's briefs in place of the second's messages.
 */
describe('a stored session id reused by another conversation in a new process', () => {
  it('is said (a coded warning, a transcript-changed rewrite), and no stored fold is shown over other bytes or lost', async () => {
    const store = new MemoryFoldStore();
    const original = await driveSession({ seed: 5, steps: 70, store });
    const storedFolds = [...original.runtime.view.lattice.allRecords()].map((record) => record.id).sort();
    expect(original.runtime.view.visibleFolds.length).toBeGreaterThan(2);

    // The control: the same conversation in a new process is a pure continuation.
    const resumed = await openRuntime({ store });
    const same = await resumed.runtime.project(original.session.entries);
    expect(same.warnings.join('\n')).not.toContain('TRANSCRIPT.SESSION_MISMATCH');
    expect(same.ledger.causes).not.toContain('transcript-changed');
    expect(resumed.runtime.view.visibleFolds.length).toBe(original.runtime.view.visibleFolds.length);

    const other = new SyntheticSession({ seed: 77, resultChars: [3000, 16_000] });
    for (let step = 0; step < 40; step += 1) other.step();
    const sharedIds = other.entries.filter(
      (entry) => original.runtime.view.index.positionOf(entry.id) !== undefined,
    ).length;
    expect(sharedIds).toBeGreaterThan(20);
    const reopened = await openRuntime({ store });
    const result = await reopened.runtime.project(other.entries);
    expect(result.warnings.join('\n')).toContain('[TRANSCRIPT.SESSION_MISMATCH]');
    expect(result.ledger.causes).toContain('transcript-changed');
    const window = serialize(result.messages);
    for (const foldId of storedFolds) expect(window).not.toContain(foldId);

    // The stored session is intact: every record reads back verified and the state still lists them.
    for (const foldId of storedFolds) expect((await store.getFold('session-1', foldId))?.id).toBe(foldId);
    expect([...(await store.loadState('session-1'))!.foldIds]).toEqual(expect.arrayContaining(storedFolds));

    // The original conversation, handed over again, gets its folds back.
    const back = await openRuntime({ store });
    await back.runtime.project(original.session.entries);
    expect(back.runtime.view.visibleFolds.map((placed) => placed.record.id).sort()).toEqual(
      original.runtime.view.visibleFolds.map((placed) => placed.record.id).sort(),
    );
  }, 60_000);
});
