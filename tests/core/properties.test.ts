import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FoldError } from '../../core/fold-error.ts';
import { readFoldSource } from '../../core/store/fold-source.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import {
  assistantEntry,
  seededRandom,
  sourceLikeText,
  toolResultEntry,
  userEntry,
} from '../../testing/synthetic-session.ts';
import { appendOnlyViolations, forestViolations, pairingViolations, serialize } from '../../testing/window-checks.ts';
import { openRuntime, providerTokens } from '../support/drive-session.ts';

type Operation =
  | { type: 'user'; size: number }
  | { type: 'note'; size: number }
  | { type: 'batch'; sizes: number[] }
  | { type: 'action'; verb: string; pick: number; span: number; text: number }
  | { type: 'fold' };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  { weight: 1, arbitrary: fc.record({ type: fc.constant('user' as const), size: fc.integer({ min: 10, max: 3000 }) }) },
  { weight: 2, arbitrary: fc.record({ type: fc.constant('note' as const), size: fc.integer({ min: 10, max: 2500 }) }) },
  {
    weight: 6,
    arbitrary: fc.record({
      type: fc.constant('batch' as const),
      sizes: fc.array(fc.integer({ min: 50, max: 6000 }), { minLength: 1, maxLength: 3 }),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      type: fc.constant('action' as const),
      verb: fc.constantFrom(
        'status',
        'peek',
        'brief',
        'expand',
        'refold',
        'pin',
        'unpin',
        'reboundary',
        'unmark',
        'bogus',
      ),
      pick: fc.nat(),
      span: fc.integer({ min: 0, max: 6 }),
      text: fc.integer({ min: 0, max: 2200 }),
    }),
  },
  { weight: 1, arbitrary: fc.record({ type: fc.constant('fold' as const) }) },
);

/** Play a list of operations like a host would, returning everything a property needs. */
async function play(operations: readonly Operation[]) {
  const { runtime, sink, store } = await openRuntime({
    settings: {
      providerInputBudget: 9_000,
      thresholds: { maxTarget: 0.8, minTarget: 0.4, consolidateAfter: 3, minFoldChars: 1_000 },
    },
  });
  const entries: TranscriptEntry[] = [userEntry('u0', 'begin')];
  const random = seededRandom(99);
  const refusals: string[] = [];
  let sequence = 0;
  const id = (prefix: string) => `${prefix}${(sequence += 1)}`;
  const project = async () => {
    try {
      const result = await runtime.project(entries);
      runtime.recordUsage({ input: providerTokens(result.ledger.totalChars), cacheRead: 0, cacheWrite: 0, output: 10 });
    } catch (error) {
      if (!FoldError.isInstance(error) || error.code !== 'BUDGET.EXCEEDED') throw error;
      refusals.push(error.code);
    }
  };
  await project();
  for (const op of operations) {
    if (op.type === 'user') entries.push(userEntry(id('u'), sourceLikeText(random, op.size, 'ask')));
    else if (op.type === 'note') entries.push(assistantEntry(id('a'), sourceLikeText(random, op.size, 'note')));
    else if (op.type === 'batch') {
      const calls = op.sizes.map((_, position) => ({
        id: id('c'),
        name: position === 1 ? 'grep' : 'read',
        arguments: { path: `f${position}` },
      }));
      entries.push(assistantEntry(id('a'), 'working', calls));
      op.sizes.forEach((size, position) => {
        entries.push(
          toolResultEntry(id('r'), calls[position]!.id, calls[position]!.name, sourceLikeText(random, size, 'out')),
        );
      });
    } else if (op.type === 'fold') runtime.requestCommit('user-fold');
    else {
      const args = actionArguments(runtime, op);
      const callId = id('c');
      entries.push(assistantEntry(id('a'), '', [{ id: callId, name: 'fold_context', arguments: args }]));
      const before = JSON.stringify(runtime.view.memory.snapshot(runtime.view.lattice.expanded, []));
      let text: string;
      try {
        text = (await runtime.act(args, { toolCallId: callId })).text;
      } catch (error) {
        if (!FoldError.isInstance(error)) throw error;
        // A refusal names its reason and changes nothing.
        expect(error.message.length).toBeGreaterThan(10);
        expect(JSON.stringify(runtime.view.memory.snapshot(runtime.view.lattice.expanded, []))).toBe(before);
        text = error.message;
      }
      entries.push(toolResultEntry(id('r'), callId, 'fold_context', text));
    }
    await project();
  }
  return { runtime, sink, store, refusals };
}

function actionArguments(
  runtime: Awaited<ReturnType<typeof openRuntime>>['runtime'],
  op: Extract<Operation, { type: 'action' }>,
): Record<string, unknown> {
  const folds = [...runtime.view.lattice.allRecords()].map((record) => record.id);
  const marks = runtime.view.memory.marks.map((mark) => mark.id);
  const entryIds = runtime.view.index.entries.map((entry) => entry.id);
  const pick = <T>(list: readonly T[], fallback: T): T => (list.length === 0 ? fallback : list[op.pick % list.length]!);
  const anyId = pick([...folds, ...marks, ...entryIds, 'fold_000000000000000000000000', '../etc/passwd'], 'nothing');
  switch (op.verb) {
    case 'status':
      return { action: 'status', detail: op.pick % 2 === 0 ? 'tree' : 'summary' };
    case 'peek':
      return {
        action: 'peek',
        id: pick(folds, anyId),
        ...(op.span > 3 ? { offset: op.pick % 3000, bytes: 1024 } : {}),
      };
    case 'brief':
      return { action: 'brief', id: pick(marks, anyId), text: 'x'.repeat(op.text) };
    case 'expand':
    case 'refold':
      return { action: op.verb, id: pick(folds, anyId) };
    case 'pin':
    case 'unpin':
      return { action: op.verb, ids: [pick(entryIds, anyId)] };
    case 'reboundary': {
      const start = op.pick % Math.max(1, entryIds.length);
      return {
        action: 'reboundary',
        ids: entryIds
          .slice(start, start + op.span + 1)
          .filter((_, position, list) => position === 0 || position === list.length - 1),
      };
    }
    case 'unmark':
      return { action: 'unmark', id: pick(marks, anyId) };
    default:
      return { action: op.verb, id: op.pick };
  }
}

describe('properties over random transcripts and action sequences', () => {
  it('append-only between rewrites, forest, pairing, lossless at every depth, deterministic', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 20, maxLength: 70 }), async (operations) => {
        const first = await play(operations);
        expect(appendOnlyViolations(first.sink.projections)).toEqual([]);
        for (const projection of first.sink.projections) expect(pairingViolations(projection.messages)).toEqual([]);
        const records = [...first.runtime.view.lattice.allRecords()];
        expect(forestViolations(records, (entryId) => first.runtime.view.index.positionOf(entryId))).toEqual([]);
        for (const record of records) {
          const source = await readFoldSource(
            first.store,
            (foldId) => first.runtime.view.lattice.record(foldId),
            record.id,
          );
          const start = first.runtime.view.index.positionOf(record.firstEntryId)!;
          expect(source.map((entry) => entry.bytes)).toEqual(
            first.runtime.view.index.entries.slice(start, start + source.length).map((entry) => entry.bytes),
          );
        }
        const second = await play(operations);
        expect(second.sink.projections.map((projection) => serialize(projection.messages))).toEqual(
          first.sink.projections.map((projection) => serialize(projection.messages)),
        );
      }),
      { numRuns: 40, seed: 20261130 },
    );
  });
});

describe('the property run exercises what it claims', () => {
  it('commits, expansions, give-backs and refusals all occur across samples', async () => {
    const samples = fc.sample(fc.array(operation, { minLength: 50, maxLength: 70 }), { numRuns: 12, seed: 5 });
    const causes = new Map<string, number>();
    let folds = 0;
    let nested = 0;
    for (const operations of samples) {
      const { runtime, sink } = await play(operations);
      for (const projection of sink.projections)
        for (const cause of projection.ledger.causes) causes.set(cause, (causes.get(cause) ?? 0) + 1);
      const records = [...runtime.view.lattice.allRecords()];
      folds += records.length;
      nested += records.filter((record) => record.parts.some((part) => part.kind === 'fold')).length;
    }
    expect(folds).toBeGreaterThan(30);
    expect(nested).toBeGreaterThan(3);
    expect(causes.get('commit') ?? 0).toBeGreaterThan(5);
    expect(causes.get('user-fold') ?? 0).toBeGreaterThan(0);
    expect(causes.get('expand') ?? 0).toBeGreaterThan(0);
    expect(causes.get('give-back') ?? 0).toBeGreaterThan(0);
  });
});
