import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { readFoldSource } from '../../core/store/fold-source.ts';
import { SyntheticSession, userEntry } from '../../testing/synthetic-session.ts';
import { appendOnlyViolations, serialize } from '../../testing/window-checks.ts';
import { driveSession, openRuntime } from '../support/drive-session.ts';

describe('restart', () => {
  it('a new runtime on the same store restores folds, marks and pins and renders the same window', async () => {
    const store = new MemoryFoldStore();
    const first = await driveSession({ seed: 12, steps: 120, store });
    const pinId = first.session.entries[first.session.entries.length - 3]!.id;
    await first.runtime.act({ action: 'pin', ids: [pinId] });
    const mark = first.runtime.view.memory.marks[0];
    if (mark !== undefined) await first.runtime.act({ action: 'brief', id: mark.id, text: 'kept across restarts' });
    const before = serialize(first.runtime.view.frozen!);

    const { runtime: second } = await openRuntime({ store });
    const after = await second.project(first.session.entries);
    expect(serialize(after.messages)).toBe(before);
    expect(second.view.lattice.size).toBe(first.runtime.view.lattice.size);
    expect([...second.view.memory.pins]).toContain(pinId);
    if (mark !== undefined) expect(second.view.memory.markById(mark.id)?.brief).toBe('kept across restarts');
    const deep =
      [...second.view.lattice.allRecords()].find((record) => record.kind === 'consolidation') ??
      [...second.view.lattice.allRecords()][0]!;
    const source = await readFoldSource(store, (id) => second.view.lattice.record(id), deep.id);
    const start = first.runtime.view.index.positionOf(deep.firstEntryId)!;
    expect(source.map((entry) => entry.bytes)).toEqual(
      first.session.entries.slice(start, start + source.length).map((entry) => entry.bytes),
    );
  });

  it('a state from an unknown schema version is refused by name, and nothing is overwritten', async () => {
    const store = new MemoryFoldStore();
    await driveSession({ seed: 2, steps: 30, store });
    const state = await store.loadState('session-1');
    await store.saveState('session-1', { ...state!, schemaVersion: 7 as 1 });
    await expect(openRuntime({ store })).rejects.toThrow(/STORE.SCHEMA_VERSION: .*schema version 7/);
  });
});

describe('branch navigation', () => {
  it('a host that moves to another branch gets an attributed rewrite, and folds off the branch disappear', async () => {
    const { runtime, sink } = await openRuntime({ settings: { providerInputBudget: 40_000 } });
    const session = new SyntheticSession({ seed: 8, resultChars: [3000, 12_000] });
    for (let step = 0; step < 90; step += 1) {
      session.step();
      await runtime.project(session.entries);
    }
    const foldsBefore = runtime.view.visibleFolds.length;
    expect(foldsBefore).toBeGreaterThan(0);
    // Navigate back to an early point and continue on a new branch.
    const branch = [...session.entries.slice(0, 5), userEntry('branch-1', 'try another approach')];
    const result = await runtime.project(branch);
    expect(result.ledger.causes).toContain('transcript-changed');
    expect(result.messages.every((message) => message.kind !== 'synthetic' || message.origin !== 'placeholder')).toBe(
      true,
    );
    expect(appendOnlyViolations(sink.projections)).toEqual([]);
    // And back to the original branch: its folds are shown again.
    const back = await runtime.project(session.entries);
    expect(back.ledger.causes).toContain('transcript-changed');
    expect(runtime.view.visibleFolds.length).toBe(foldsBefore);
  });
});
