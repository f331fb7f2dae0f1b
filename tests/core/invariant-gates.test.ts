import { describe, expect, it } from 'vitest';
import { FoldError } from '../../core/fold-error.ts';
import { readFoldSource } from '../../core/store/fold-source.ts';
import { assistantEntry, toolResultEntry, userEntry } from '../../testing/synthetic-session.ts';
import { appendOnlyViolations, forestViolations, pairingViolations, serialize } from '../../testing/window-checks.ts';
import { corruptingStore } from '../support/corrupting-store.ts';
import { driveSession, openRuntime } from '../support/drive-session.ts';

// One long tool-heavy run shared by the gates: 260 requests against a 60k-token budget.
const run = await driveSession({ seed: 7, steps: 260 });
const { runtime, sink } = run;

describe('I1 append-only window', () => {
  it('every request extends the previous bytes unless a rewrite was recorded, and none is unattributed', () => {
    expect(sink.projections.length).toBe(260);
    expect(appendOnlyViolations(sink.projections)).toEqual([]);
    expect(runtime.view.memory.counters.unattributedRewrites).toBe(0);
  });

  it('rewrites happen only at commits (plus attributed causes), and commits land', () => {
    const rewrites = sink.projections.filter((projection) => projection.ledger.causes.length > 0);
    const commits = sink.projections.filter((projection) => projection.ledger.foldsLanded > 0);
    expect(commits.length).toBeGreaterThan(3);
    for (const rewrite of rewrites) expect(rewrite.ledger.causes).toContain('commit');
    expect(runtime.view.memory.counters.rewrites).toBe(commits.length);
  });

  it('the gate catches an unattributed mid-window edit', () => {
    const tampered = sink.projections
      .slice(0, 3)
      .map((projection) => ({ ...projection, messages: [...projection.messages] }));
    const victim = tampered[2]!.messages[0]!;
    tampered[2]!.messages[0] = { ...victim, bytes: `${victim.bytes} `, digest: 'x' } as typeof victim;
    expect(appendOnlyViolations(tampered).length).toBeGreaterThan(0);
  });
});

describe("B3.2 the band policy (the seed's, chosen in settings)", () => {
  it('commits fire at maxTarget and bring occupancy to about minTarget', async () => {
    const budget = 60_000;
    let commits = 0;
    const band = await driveSession({ seed: 7, steps: 260, settings: { scheduling: 'band', rawFloorTokens: 0 } });
    for (const { ledger: row } of band.sink.projections) {
      if (row.foldsLanded === 0) {
        // Quiet below maxTarget: marks wait, nothing moves.
        expect(row.estimatedTokens / budget).toBeLessThan(0.8);
        continue;
      }
      commits += 1;
      expect(row.preCommitTokens / budget).toBeGreaterThanOrEqual(0.8);
      expect(row.estimatedTokens / budget).toBeLessThanOrEqual(0.42);
      expect(row.estimatedTokens / budget).toBeGreaterThan(0.15);
    }
    expect(commits).toBeGreaterThan(3);
  });
});

describe('I2 lossless', () => {
  it('every fold at every depth returns its exact source, verified', async () => {
    const records = [...runtime.view.lattice.allRecords()];
    expect(records.length).toBeGreaterThan(20);
    expect(records.some((record) => record.parts.some((part) => part.kind === 'fold'))).toBe(true);
    for (const record of records) {
      const source = await readFoldSource(run.store, (id) => runtime.view.lattice.record(id), record.id);
      const first = runtime.view.index.positionOf(record.firstEntryId)!;
      const expected = runtime.view.index.entries.slice(first, first + source.length);
      expect(source.map((entry) => entry.bytes)).toEqual(expected.map((entry) => entry.bytes));
      expect(source[source.length - 1]!.entryId).toBe(record.lastEntryId);
    }
  });

  it('a corrupted blob is refused by name and nothing partial is returned', async () => {
    const { store: corrupting, corrupt } = corruptingStore((bytes) => (bytes[0] = bytes[0]! ^ 1));
    const corrupted = await driveSession({ seed: 3, steps: 60, store: corrupting });
    const fold = [...corrupted.runtime.view.lattice.allRecords()][0]!;
    corrupt();
    const error = await corrupted.runtime.act({ action: 'peek', id: fold.id }).catch((caught: unknown) => caught);
    expect(FoldError.isInstance(error) && error.code).toBe('STORE.HASH_MISMATCH');
    await expect(
      readFoldSource(corrupting, (id) => corrupted.runtime.view.lattice.record(id), fold.id),
    ).rejects.toThrow(/STORE.HASH_MISMATCH/);
  });
});

describe('I3 structure', () => {
  it('folds form a forest and every projection keeps call/result pairing', () => {
    expect(forestViolations([...runtime.view.lattice.allRecords()], (id) => runtime.view.index.positionOf(id))).toEqual(
      [],
    );
    for (const projection of sink.projections) expect(pairingViolations(projection.messages)).toEqual([]);
  });

  it('the checks catch a split pair and an overlap', () => {
    const messages = sink.projections[5]!.messages;
    const resultAt = messages.findIndex(
      (message) => message.kind === 'entry' && message.bytes.includes('"role":"toolResult"'),
    );
    expect(pairingViolations(messages.filter((_, position) => position !== resultAt - 1)).length).toBeGreaterThan(0);
    const [a, b] = [...runtime.view.lattice.allRecords()].filter((record) => record.kind === 'chapter');
    const overlapping = {
      ...b!,
      id: 'fold_overlap',
      firstEntryId: runtime.view.index.entries[runtime.view.index.positionOf(a!.firstEntryId)! + 1]!.id,
    };
    expect(forestViolations([a!, overlapping, b!], (id) => runtime.view.index.positionOf(id)).length).toBeGreaterThan(
      0,
    );
  });
});

describe('I4 protection', () => {
  it('pinned entries, blacklisted tools and open units never fold', async () => {
    const pinned = await openRuntime({ settings: { blacklistAutoFoldTools: ['grep'] } });
    const { SyntheticSession } = await import('../../testing/synthetic-session.ts');
    const session = new SyntheticSession({ seed: 11, resultChars: [3000, 16_000], parallelShare: 0.5 });
    for (let step = 0; step < 6; step += 1) session.step();
    await pinned.runtime.project(session.entries);
    const pinId = session.entries[3]!.id;
    await pinned.runtime.act({ action: 'pin', ids: [pinId] });
    for (let step = 0; step < 150; step += 1) {
      session.step();
      await pinned.runtime.project(session.entries);
      const open = session.entries[session.entries.length - 1]!;
      expect(pinned.runtime.view.lattice.isHidden(session.entries.length - 1)).toBe(false);
      expect(open).toBeDefined();
    }
    const records = [...pinned.runtime.view.lattice.allRecords()];
    expect(records.length).toBeGreaterThan(5);
    const pinPosition = pinned.runtime.view.index.positionOf(pinId)!;
    expect(pinned.runtime.view.lattice.isHidden(pinPosition)).toBe(false);
    for (const record of records.filter((candidate) => candidate.kind === 'tool')) {
      for (const call of record.toolCalls ?? []) expect(call.toolName).not.toBe('grep');
    }
  });
});

describe('I5 determinism', () => {
  it('same transcript, actions and settings give byte-identical projections', async () => {
    const again = await driveSession({ seed: 7, steps: 260 });
    expect(again.sink.projections.length).toBe(sink.projections.length);
    for (let n = 0; n < sink.projections.length; n += 1) {
      expect(serialize(again.sink.projections[n]!.messages)).toBe(serialize(sink.projections[n]!.messages));
    }
  });
});

describe('I6 budget fence', () => {
  it('no request exceeds the budget while a fold could make room', () => {
    for (const projection of sink.projections)
      expect(projection.ledger.estimatedTokens).toBeLessThanOrEqual(projection.ledger.budgetTokens);
  });

  it('when nothing can fold, the request is refused out of band and the window is untouched', async () => {
    const { runtime: fenced, sink: fencedSink } = await openRuntime({ settings: { providerInputBudget: 5_000 } });
    // Two results each under the spill threshold (a single 30 KB one would be spilled, docs/behaviour.md B6.2).
    const entries = [
      userEntry('u1', 'start'),
      assistantEntry('a1', 'reading', [
        { id: 'c1', name: 'read', arguments: { path: 'x' } },
        { id: 'c2', name: 'read', arguments: { path: 'z' } },
      ]),
      toolResultEntry('r1', 'c1', 'read', 'y'.repeat(15_000)),
      toolResultEntry('r2', 'c2', 'read', 'w'.repeat(15_000)),
    ];
    await fenced.project(entries.slice(0, 1));
    // The only large unit is the newest (open), so no lossless fold exists.
    const error = await fenced.project(entries).catch((caught: unknown) => caught);
    expect(FoldError.isInstance(error) && error.code).toBe('BUDGET.EXCEEDED');
    expect(fencedSink.projections.length).toBe(1);
    expect(fenced.view.frozen?.length).toBe(1);
  });
});

describe('I7 never show then take back', () => {
  it('notices and receipts are appended once and never re-rendered in place', () => {
    const seen = new Map<string, string>();
    let noticesThisEpoch = 0;
    for (const projection of sink.projections) {
      if (projection.ledger.causes.length > 0) noticesThisEpoch = 0;
      const fresh = projection.messages.filter(
        (message) =>
          message.kind === 'synthetic' &&
          message.origin !== 'placeholder' &&
          !seen.has(`${message.origin}:${message.digest}`),
      );
      // A notice or receipt appears once, at the tail, and is never shown again with other words.
      for (const message of fresh)
        expect(projection.messages.indexOf(message)).toBeGreaterThanOrEqual(projection.ledger.divergenceIndex);
      noticesThisEpoch += fresh.filter((message) => message.kind === 'synthetic' && message.origin === 'notice').length;
      expect(noticesThisEpoch).toBeLessThanOrEqual(1);
      const receipts = fresh.filter((message) => message.kind === 'synthetic' && message.origin === 'receipt');
      expect(receipts.length).toBe(projection.ledger.foldsLanded > 0 ? 1 : 0);
      for (const message of fresh)
        if (message.kind === 'synthetic') seen.set(`${message.origin}:${message.digest}`, message.text);
    }
    expect([...seen.keys()].some((key) => key.startsWith('receipt'))).toBe(true);
    expect([...seen.keys()].some((key) => key.startsWith('notice'))).toBe(true);
  });
});

describe('I6 with held spans', () => {
  it('spans the agent held raw are folded when the budget needs them, rather than sending over budget', async () => {
    const { runtime: held, sink: heldSink } = await openRuntime({ settings: { providerInputBudget: 30_000 } });
    const { SyntheticSession } = await import('../../testing/synthetic-session.ts');
    const session = new SyntheticSession({ seed: 4, resultChars: [3000, 7000] });
    for (let step = 0; step < 200; step += 1) {
      session.step();
      await held.project(session.entries);
      // The agent withdraws every mark it sees: without the fence nothing would ever fold.
      // Unmarking one mark can withdraw another (a parent over it): only those still standing.
      for (const mark of [...held.view.memory.marks])
        if (held.view.memory.markById(mark.id) !== undefined) await held.act({ action: 'unmark', id: mark.id });
    }
    expect(held.view.memory.holds.length).toBeGreaterThan(5);
    expect(held.view.memory.counters.commits).toBeGreaterThan(0);
    for (const projection of heldSink.projections)
      expect(projection.ledger.estimatedTokens).toBeLessThanOrEqual(projection.ledger.budgetTokens);
  });
});

describe('B3.6 eager scheduling (ablation)', () => {
  it('lands each mark as it is cut, paying a rewrite far more often than the default', async () => {
    const immediate = await driveSession({ seed: 7, steps: 260, settings: { scheduling: 'eager' } });
    expect(appendOnlyViolations(immediate.sink.projections)).toEqual([]);
    expect(immediate.runtime.view.memory.counters.unattributedRewrites).toBe(0);
    expect(immediate.runtime.view.memory.counters.rewrites).toBeGreaterThan(3 * runtime.view.memory.counters.rewrites);
    const peakImmediate = Math.max(
      ...immediate.sink.projections.map((projection) => projection.ledger.estimatedTokens),
    );
    expect(peakImmediate).toBeLessThan(0.8 * 60_000);
  });
});
