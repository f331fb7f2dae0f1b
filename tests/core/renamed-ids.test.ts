import { describe, expect, it } from 'vitest';
import type { FoldWarning } from '../../ports/fold-warning.ts';
import type { ProjectionResult } from '../../ports/projection.ts';
import type { TranscriptEntry } from '../../ports/transcript-entry.ts';
import { SyntheticSession, userEntry } from '../../testing/synthetic-session.ts';
import { openRuntime, providerTokens } from '../support/drive-session.ts';

const renamedWarnings = (result: ProjectionResult): FoldWarning[] =>
  result.warningRecords.filter((warning) => warning.code === 'TRANSCRIPT.IDS_RENAMED');

/** The same entries under ids of their own for request `request`: a host that renames. */
function renamed(entries: readonly TranscriptEntry[], request: number): TranscriptEntry[] {
  return entries.map((entry) => ({ ...entry, id: `r${request}-${entry.id}` }));
}

async function project(runtime: Awaited<ReturnType<typeof openRuntime>>['runtime'], entries: TranscriptEntry[]) {
  const result = await runtime.project(entries);
  runtime.recordUsage({ input: providerTokens(result.ledger.totalChars), cacheRead: 0, cacheWrite: 0, output: 50 });
  return result;
}

describe('a host that renames its entries keeps its folds (docs/behaviour.md B6.6)', () => {
  it('folds nothing again, rewrites nothing and stores what a host with stable ids would', async () => {
    const settings = { settings: { providerInputBudget: 30_000 } };
    const stable = await openRuntime(settings);
    const renaming = await openRuntime(settings);
    const session = new SyntheticSession({ seed: 4, resultChars: [3_000, 8_000] });
    // The stable host names each entry by the id the renaming host gave it first.
    const firstIds = new Map<string, string>();
    const told: FoldWarning[] = [];
    for (let request = 0; request < 40; request += 1) {
      const handedBefore = request === 0 ? 0 : session.entries.length;
      session.step();
      const handed = renamed(session.entries, request);
      for (const entry of session.entries)
        if (!firstIds.has(entry.id)) firstIds.set(entry.id, `r${request}-${entry.id}`);
      const expected = await project(
        stable.runtime,
        session.entries.map((entry) => ({ ...entry, id: firstIds.get(entry.id)! })),
      );
      const result = await project(renaming.runtime, handed);
      // The same window, message for message, and the same rewrites.
      expect(result.ledger.digests).toEqual(expected.ledger.digests);
      expect(result.ledger.causes).toEqual(expected.ledger.causes);
      // Each entry the window shows is named by this request's id for it.
      const handedIds = new Set(handed.map((entry) => entry.id));
      for (const message of result.messages)
        if (message.kind !== 'synthetic') expect(handedIds).toContain(message.entryId);
      const warnings = renamedWarnings(result);
      told.push(...warnings);
      if (request === 1) {
        expect(warnings[0], 'told at the first renamed request').toBeDefined();
        // Every entry the previous request held came back renamed.
        expect(warnings[0]!.details.renamedEntries).toBe(handedBefore);
        expect(warnings[0]!.message).toMatch(/bytes are unchanged under new ids.*nothing folds again.*stays the same/);
      }
    }
    expect(told, 'once per session').toHaveLength(1);
    expect(stable.runtime.view.memory.counters.commits).toBeGreaterThan(2);
    const foldsOf = async (store: typeof stable.store) =>
      (await store.listFolds('session-1')).map((record) => record.id).sort();
    expect(await foldsOf(renaming.store)).toEqual(await foldsOf(stable.store));
    expect(renaming.runtime.view.memory.counters.rewrites).toBe(stable.runtime.view.memory.counters.rewrites);
  });

  it('an entry pinned by its new id is the entry it always was', async () => {
    const { runtime } = await openRuntime({ settings: { providerInputBudget: 30_000 } });
    const session = new SyntheticSession({ seed: 6, resultChars: [3_000, 8_000] });
    for (let step = 0; step < 6; step += 1) session.step();
    await project(runtime, renamed(session.entries, 0));
    const again = renamed(session.entries, 1);
    await project(runtime, again);
    const user = again.find((entry) => entry.role === 'user')!;
    await runtime.act({ action: 'pin', ids: [user.id] });
    expect(runtime.view.memory.pins).toContain(`r0-${user.id.slice('r1-'.length)}`);
  });

  it('a host with stable ids, a rewritten early message and a branch switch are not renames', async () => {
    const { runtime } = await openRuntime({ settings: { providerInputBudget: 30_000 } });
    const session = new SyntheticSession({ seed: 5, resultChars: [3_000, 8_000] });
    const results = [];
    for (let step = 0; step < 10; step += 1) {
      session.step();
      results.push(await project(runtime, session.entries));
    }
    // A host whose ids chain on the entries before them (the AI SDK adapter's): an edit of an
    // early message gives every later entry a new id, with its bytes unchanged.
    const entries = session.entries;
    const edited = [
      ...entries.slice(0, 2),
      { ...entries[2]!, id: 'edited-2', bytes: `${entries[2]!.bytes} (edited)`, text: `${entries[2]!.text} (edited)` },
      ...entries.slice(3).map((entry) => ({ ...entry, id: `chained-${entry.id}` })),
    ];
    results.push(await project(runtime, edited));
    // A branch switch: another conversation after the first entry.
    results.push(await project(runtime, [entries[0]!, userEntry('other-branch', 'something else entirely')]));
    for (const result of results) expect(renamedWarnings(result)).toEqual([]);
  });
});
