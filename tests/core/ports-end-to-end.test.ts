import { describe, expect, it } from 'vitest';
import { RecordingProjectionSink } from '../../adapters/backends/projection-recorder/recording-projection-sink.ts';
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { readFoldSource } from '../../core/store/fold-source.ts';
import type { BranchRead, KnownBranch } from '../../ports/transcript-source.port.ts';
import { MemoryTranscriptSource } from '../../testing/memory-transcript-source.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';

/** A memory source that remembers which kind of read it handed, to show the engine took the incremental path. */
class CountingSource extends MemoryTranscriptSource {
  readonly kinds: BranchRead['kind'][] = [];
  override read(known: KnownBranch): BranchRead {
    const read = super.read(known);
    this.kinds.push(read.kind);
    return read;
  }
}

describe('the engine on in-memory ports only', () => {
  it('a long session through TranscriptSource, FoldStore, CostModel, EvidenceStore and ProjectionSink: folds land, nothing is lost, every door is used', async () => {
    const sessionId = 'ports-e2e';
    const source = new CountingSource(sessionId);
    const foldStore = new MemoryFoldStore();
    const sink = new RecordingProjectionSink();
    const observed: number[] = [];
    const runtime = await FoldRuntime.open({
      sessionId,
      settings: resolveSettings({ providerInputBudget: 80_000 }),
      foldStore,
      costModel: createCharsCostModel(),
      evidenceStore: new MemoryEvidenceStore(),
      projectionSink: sink,
    });
    runtime.subscribe({ accept: (projection) => observed.push(projection.ledger.request) });
    const session = new SyntheticSession({ seed: 41, resultChars: [2_000, 14_000] });
    for (let step = 0; step < 120; step += 1) {
      const before = session.entries.length;
      session.step();
      source.append(...session.entries.slice(before));
      const result = await runtime.project(source);
      runtime.recordUsage({
        input: Math.ceil(result.ledger.totalChars / 3.6),
        cacheRead: 0,
        cacheWrite: 0,
        output: 80,
      });
    }
    // A rewrite of history: the first message is edited, and the engine records it as a change.
    source.replace([
      { ...session.entries[0]!, id: 'u-edited', bytes: '{"role":"user","text":"edited"}' },
      ...session.entries.slice(1),
    ]);
    const changed = await runtime.project(source);

    expect(changed.ledger.causes).toContain('transcript-changed');
    expect(source.kinds.filter((kind) => kind === 'appended').length).toBe(120);
    expect(source.kinds.at(-1)).toBe('branch');
    const ledger = runtime.view.ledger;
    expect(ledger.some((row) => row.foldsLanded > 0)).toBe(true);
    expect(ledger.every((row) => !row.unattributed)).toBe(true);
    expect(sink.projections.map((projection) => projection.ledger.request)).toEqual(ledger.map((row) => row.request));
    expect(observed).toEqual(ledger.map((row) => row.request));
    expect(sink.commitEvents.filter((event) => event.phase === 'landed').length).toBe(
      ledger.filter((row) => row.foldsLanded > 0).length,
    );
    const bytesById = new Map(session.entries.map((entry) => [entry.id, entry.bytes]));
    for (const record of runtime.view.lattice.allRecords()) {
      const entries = await readFoldSource(foldStore, (id) => runtime.view.lattice.record(id), record.id);
      for (const entry of entries) expect(entry.bytes).toBe(bytesById.get(entry.entryId));
    }
  });

  it('refuses a source of another session by name, and changes nothing', async () => {
    const runtime = await FoldRuntime.open({
      sessionId: 'mine',
      settings: resolveSettings({ providerInputBudget: 80_000 }),
      foldStore: new MemoryFoldStore(),
      costModel: createCharsCostModel(),
    });
    await expect(runtime.project(new MemoryTranscriptSource('theirs'))).rejects.toMatchObject({
      code: 'TRANSCRIPT.WRONG_SESSION',
    });
    expect(runtime.view.memory.counters.requests).toBe(0);
  });

  it('refuses an appended read that does not continue the branch the engine holds', async () => {
    const runtime = await FoldRuntime.open({
      sessionId: 'stale',
      settings: resolveSettings({ providerInputBudget: 80_000 }),
      foldStore: new MemoryFoldStore(),
      costModel: createCharsCostModel(),
    });
    const session = new SyntheticSession({ seed: 3 });
    session.step();
    await runtime.project(session.entries);
    const stale = {
      specificationVersion: 'v1' as const,
      sessionId: 'stale',
      read: (): BranchRead => ({ kind: 'appended', afterEntryId: 'not-the-newest', entries: [] }),
    };
    await expect(runtime.project(stale)).rejects.toMatchObject({ code: 'TRANSCRIPT.STALE_READ' });
    expect(runtime.view.memory.counters.requests).toBe(1);
  });
});
