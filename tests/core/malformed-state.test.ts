import { describe, expect, test } from 'vitest';
import type { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import type { EngineState, FoldRecord } from '../../ports/fold-records.ts';
import type { SyntheticSession } from '../../testing/synthetic-session.ts';
import { driveSession, openRuntime } from '../support/drive-session.ts';

/**
 * A state or record that is self-consistent (its envelope hashes right) but of the wrong
 * shape inside must be refused by name on read, never reach the engine as a TypeError.
 */
const SESSION = 'session-1';

async function storedState(): Promise<{ store: MemoryFoldStore; state: EngineState; entries: SyntheticSession }> {
  const driven = await driveSession({ seed: 5, steps: 50 });
  const store = driven.store as MemoryFoldStore;
  const state = (await store.loadState(SESSION))!;
  expect(state.foldIds.length).toBeGreaterThan(0);
  return { store, state, entries: driven.session };
}

const malformations: readonly [string, (state: EngineState) => unknown][] = [
  ['a fold id that is a number', (state) => ({ ...state, foldIds: [5, ...state.foldIds] })],
  ['a mark that is null', (state) => ({ ...state, marks: [null] })],
  ['a hold without its ends', (state) => ({ ...state, holds: [{}] })],
  [
    'an insert whose text is an object',
    (state) => ({ ...state, inserts: [{ kind: 'receipt', afterEntryId: 'u000001', sequence: 0, text: {} }] }),
  ],
  ['a peek record that is a string', (state) => ({ ...state, ephemeralPeeks: ['peek'] })],
  ['a counter that is text', (state) => ({ ...state, counters: { ...state.counters, requests: 'many' } })],
  ['a pin that is an object', (state) => ({ ...state, pins: [{ id: 'u000001' }] })],
];

describe('a self-consistent malformed state', () => {
  for (const [name, malform] of malformations) {
    test(`${name}: refused with STATE.CORRUPT and the repair hint, not a TypeError`, async () => {
      const { store, state, entries } = await storedState();
      await store.saveState(SESSION, malform(state) as EngineState);
      const outcome = await openRuntime({ store })
        .then(({ runtime }) => runtime.project(entries.entries))
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(outcome).toMatchObject({ name: 'FoldError', code: 'STATE.CORRUPT' });
      expect((outcome as Error).message).toContain('pi-fold repair');
    });
  }

  test('a record of the wrong shape is named as lost, not thrown as a TypeError', async () => {
    const { store, state, entries } = await storedState();
    const victim = (await store.getFold(SESSION, state.foldIds[0]!))!;
    const malformed = { ...victim, parts: [null] } as unknown as FoldRecord;
    (store as unknown as { folds: Map<string, Map<string, string>> }).folds
      .get(SESSION)!
      .set(victim.id, JSON.stringify(malformed));
    const { runtime } = await openRuntime({ store });
    const result = await runtime.project(entries.entries);
    expect(result.warningRecords.map((warning) => warning.code)).toContain('STORE.FOLDS_LOST');
    expect(result.warnings.join('\n')).toContain(victim.id);
  });
});
