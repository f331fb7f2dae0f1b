import { describe, expect, it } from 'vitest';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import type { TranscriptEntry } from '../../ports/transcript-entry.ts';
import {
  assistantEntry,
  seededRandom,
  sourceLikeText,
  toolResultEntry,
  userEntry,
} from '../../testing/synthetic-session.ts';
import { appendOnlyViolations } from '../../testing/window-checks.ts';
import { openRuntime, reportUncachedUsage } from '../support/drive-session.ts';

/** A conversation of `turns` turns, each a user message, one tool call and its result of `resultChars`. */
function conversation(turns: number, resultChars: number, prefix = ''): TranscriptEntry[] {
  const random = seededRandom(3);
  const entries: TranscriptEntry[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    const call = { id: `${prefix}c${turn}`, name: 'read', arguments: { path: `src/m${turn}.c` } };
    entries.push(userEntry(`${prefix}u${turn}`, `turn ${turn}: look at module ${turn}`));
    entries.push(assistantEntry(`${prefix}a${turn}`, `reading module ${turn}`, [call]));
    entries.push(toolResultEntry(`${prefix}r${turn}`, call.id, 'read', sourceLikeText(random, resultChars, call.id)));
  }
  return entries;
}

/** Hand the runtime `entries.slice(0, n)` for n from `from` to `to`, one turn per request; returns the refusals. */
async function walk(runtime: FoldRuntime, entries: readonly TranscriptEntry[], from: number, to: number) {
  const refusals: string[] = [];
  for (let length = from; length <= to; length += 3) {
    try {
      reportUncachedUsage(runtime, (await runtime.project(entries.slice(0, length))).ledger);
    } catch (error) {
      refusals.push(`${length} entries: ${String(error)}`);
    }
  }
  return refusals;
}

describe('a branch walked again after going back on it (docs/behaviour.md B6.7)', () => {
  it('is never refused, and re-lands the stored folds instead of making new ones', async () => {
    const { runtime, sink, store } = await openRuntime({ settings: { providerInputBudget: 12_000 } });
    const entries = conversation(140, 300);
    expect(await walk(runtime, entries, 3, 300)).toEqual([]);
    const stored = (await store.listFolds('session-1')).map((record) => record.id).sort();
    expect(stored.length, 'the first walk folded').toBeGreaterThan(3);
    const requestsBefore = sink.projections.length;
    // Back to the start, then forward again with the same ids and bytes, one turn per request.
    expect(await walk(runtime, entries, 3, 300)).toEqual([]);
    expect((await store.listFolds('session-1')).map((record) => record.id).sort(), 'no fold made twice').toEqual(
      stored,
    );
    // The walk folds as it goes: the window ends far below the raw branch.
    const last = sink.projections[sink.projections.length - 1]!;
    const rawChars = entries.slice(0, 300).reduce((sum, entry) => sum + entry.bytes.length, 0);
    expect(last.ledger.totalChars).toBeLessThan(rawChars / 2);
    expect(appendOnlyViolations(sink.projections.slice(requestsBefore))).toEqual([]);
    // And on past where the first walk stopped.
    expect(await walk(runtime, entries, 303, 420)).toEqual([]);
  });

  it('holds in a new process on the same store, walked again from the start', async () => {
    const settings = { providerInputBudget: 12_000 };
    const first = await openRuntime({ settings });
    const entries = conversation(120, 300);
    expect(await walk(first.runtime, entries, 3, 300)).toEqual([]);
    await first.runtime.dispose();
    const stored = (await first.store.listFolds('session-1')).map((record) => record.id).sort();
    const { runtime } = await openRuntime({ settings, store: first.store });
    expect(await walk(runtime, entries, 3, 300)).toEqual([]);
    expect((await first.store.listFolds('session-1')).map((record) => record.id).sort()).toEqual(stored);
  });

  it('holds at a large budget too, walked again from the middle of a long session', async () => {
    const { runtime } = await openRuntime({ settings: { providerInputBudget: 120_000 } });
    const entries = conversation(420, 1_500);
    expect(await walk(runtime, entries, 3, 1_200)).toEqual([]);
    expect(await walk(runtime, entries, 300, 1_260)).toEqual([]);
  });

  it('a branch continued under new ids, and a jump forward, still work', async () => {
    const { runtime, store } = await openRuntime({ settings: { providerInputBudget: 12_000 } });
    const entries = conversation(100, 300);
    expect(await walk(runtime, entries, 3, 300)).toEqual([]);
    const stored = (await store.listFolds('session-1')).length;
    // Another branch from the 30th entry: other ids, the same kind of turns.
    const other = [...entries.slice(0, 30), ...conversation(90, 300, 'b-').slice(30)];
    expect(await walk(runtime, other, 33, 300)).toEqual([]);
    // Back to the start of the first branch, then all of it at once: its folds are shown again.
    expect(await walk(runtime, entries, 3, 3)).toEqual([]);
    const jump = await runtime.project(entries);
    const placeholders = jump.messages.filter((message) => message.kind === 'synthetic');
    expect(placeholders.length).toBeGreaterThan(0);
    expect(jump.ledger.estimatedTokens).toBeLessThanOrEqual(12_000);
    expect((await store.listFolds('session-1')).length).toBeGreaterThan(stored);
  });
});
