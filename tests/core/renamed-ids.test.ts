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

describe('a host that renames its entries is told so, once', () => {
  it('names the renamed entries at the first request that renames them, and never again in the session', async () => {
    const { runtime, store } = await openRuntime({ settings: { providerInputBudget: 30_000 } });
    const session = new SyntheticSession({ seed: 4, resultChars: [3_000, 8_000] });
    for (let step = 0; step < 12; step += 1) session.step();
    expect(renamedWarnings(await project(runtime, renamed(session.entries, 0)))).toEqual([]);
    const told: FoldWarning[] = [];
    for (let request = 1; request <= 6; request += 1) {
      const handedBefore = session.entries.length;
      session.step();
      const result = await project(runtime, renamed(session.entries, request));
      told.push(...renamedWarnings(result));
      if (request === 1) {
        const [warning] = renamedWarnings(result);
        expect(warning, 'told at the first renamed request').toBeDefined();
        // Every entry the previous request held came back renamed.
        expect(warning!.details.renamedEntries).toBe(handedBefore);
        expect(warning!.message).toMatch(
          /bytes are unchanged under new ids.*memory store keeps a record for every fold each time.*stays the same from request to request/,
        );
      }
    }
    expect(told, 'once per session').toHaveLength(1);
    // What the warning is about: each renamed request folds the conversation again.
    expect((await store.listFolds('session-1')).length).toBeGreaterThan(runtime.view.visibleFolds.length);
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
