import { describe, expect, test } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import type { EngineState, FoldPart, FoldRecord } from '../../ports/fold-records.ts';
import { forestViolations, pairingViolations, serialize } from '../../testing/window-checks.ts';
import { driveSession, openRuntime, providerTokens } from '../support/drive-session.ts';

/**
 * Fold ids now name a span's bytes; records stored by earlier releases carry ids made from
 * kind and span alone. A restored session keeps those ids as stored: the same window, the
 * same folds peekable by their old ids, no second fold cut over a span one already stands on.
 */
const SESSION = 'session-1';
const oldStyleId = (record: FoldRecord) =>
  `fold_${sha256Hex(`${record.kind}\n${record.firstEntryId}\n${record.lastEntryId}`).slice(0, 24)}`;

/** The session's store as an earlier release would have written it. */
async function asEarlierRelease(
  store: MemoryFoldStore,
): Promise<{ store: MemoryFoldStore; renamed: Map<string, string> }> {
  const state = (await store.loadState(SESSION))!;
  const records = await Promise.all(state.foldIds.map(async (foldId) => (await store.getFold(SESSION, foldId))!));
  const renamed = new Map(records.map((record) => [record.id, oldStyleId(record)]));
  const rename = (foldId: string) => renamed.get(foldId) ?? foldId;
  const earlier = new MemoryFoldStore();
  for (const record of records) {
    for (const part of record.parts) if (part.kind === 'entry') await earlier.putBlob(await store.getBlob(part.sha256));
    const parts = record.parts.map(
      (part): FoldPart => (part.kind === 'fold' ? { kind: 'fold', foldId: rename(part.foldId) } : part),
    );
    await earlier.putFold(SESSION, { ...record, id: rename(record.id), parts });
  }
  const oldState: EngineState = {
    ...state,
    foldIds: state.foldIds.map(rename),
    expanded: state.expanded.map(rename),
    ephemeralPeeks: state.ephemeralPeeks.map((peek) => ({ ...peek, foldId: rename(peek.foldId) })),
  };
  await earlier.saveState(SESSION, oldState);
  return { store: earlier, renamed };
}

describe('a session stored with old-style fold ids', () => {
  test('restores with its ids, shows the same folds, and cuts no second fold over them', async () => {
    const driven = await driveSession({ seed: 7, steps: 60 });
    const { store, renamed } = await asEarlierRelease(driven.store as MemoryFoldStore);
    const { runtime } = await openRuntime({ store });
    const first = await runtime.project(driven.session.entries);
    const window = serialize(first.messages);
    const shown = driven.runtime.view.visibleFolds.map((placed) => renamed.get(placed.record.id)!);
    expect(shown.length).toBeGreaterThan(2);
    for (const foldId of shown) expect(window).toContain(foldId);
    expect(runtime.view.visibleFolds.map((placed) => placed.record.id).sort()).toEqual([...shown].sort());
    for (const foldId of renamed.values()) {
      const peek = await runtime.act({ action: 'peek', id: foldId, ephemeral: false });
      expect(peek.text).toContain(foldId);
    }
    // No mark waits over a span a standing fold of the same kind already covers.
    const spans = new Set(
      [...runtime.view.lattice.allRecords()].map(
        (record) => `${record.kind} ${record.firstEntryId} ${record.lastEntryId}`,
      ),
    );
    for (const mark of runtime.view.memory.marks)
      expect(spans.has(`${mark.kind} ${mark.firstEntryId} ${mark.lastEntryId}`)).toBe(false);
    // Folding goes on beside the old folds, and the forest stays a forest.
    for (let step = 0; step < 40; step += 1) {
      driven.session.step();
      const result = await runtime.project(driven.session.entries);
      expect(pairingViolations(result.messages)).toEqual([]);
      runtime.recordUsage({
        input: providerTokens(result.ledger.totalChars),
        cacheRead: 0,
        cacheWrite: 0,
        output: 200,
      });
    }
    const positions = new Map(driven.session.entries.map((entry, position) => [entry.id, position]));
    expect(forestViolations([...runtime.view.lattice.allRecords()], (entryId) => positions.get(entryId))).toEqual([]);
    expect(runtime.view.memory.counters.commits).toBeGreaterThan(0);
  });
});
