import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARRAY_MUTATORS, filesWriting, SET_MUTATORS, type WriteShape, writesIn } from './support/state-writes.ts';

const root = resolve(import.meta.dirname, '../..');

const ENGINE_MEMORY = 'core/state/engine-memory.ts';
const SESSION_MODEL = 'core/state/session-model.ts';

/**
 * Each piece of a session's state has one owner: the one file that changes it. Everyone else
 * calls the owner's methods and reads a read-only view, so a change to how a piece may move
 * is made in one place.
 */
const OWNED: readonly (readonly [name: string, owner: string, shape: WriteShape])[] = [
  ['marks', ENGINE_MEMORY, { mutators: ARRAY_MUTATORS, members: true }],
  ['counters', ENGINE_MEMORY, { members: true }],
  ['pendingCauses', SESSION_MODEL, { mutators: SET_MUTATORS }],
  ['ledger', SESSION_MODEL, { mutators: ARRAY_MUTATORS, members: true }],
  ...[
    'memory',
    'frozenView',
    'visibleFolds',
    'forcedCommit',
    'lastBudget',
    'lastContext',
    'restoredUnchecked',
    'lostSinceLastRun',
    'renamedIdsReported',
  ].map((name) => [name, SESSION_MODEL, {}] as const),
];

describe('one owner per piece of session state', () => {
  for (const [name, owner, shape] of OWNED) {
    it(`${name} is written only in ${owner}`, () => {
      expect(filesWriting(root, 'core', name, shape)).toEqual([owner]);
    });
  }

  it('counts every way of changing a list, a set or a record, through casts and destructured locals', () => {
    const arrays = { mutators: ARRAY_MUTATORS, members: true };
    const sample = [
      'memory.marks = [];',
      'memory.marks.push(mark);',
      '(memory.marks as PendingMarkV1[]).splice(0, 1);',
      'memory.marks!.sort();',
      'memory.marks.length = 0;',
      'memory.marks[0] = mark;',
      'this.#marks.reverse();',
      'memory.counters.requests += 1;',
      'memory.counters.commits++;',
      'model.pendingCauses.add("expand");',
      'delete memory.marks[0];',
      'const { pendingCauses, counters: tally } = model; pendingCauses.clear(); tally.commits = 0;',
      // Reads, and someone's own local of the same name:
      'const first = memory.marks[0];',
      'const ids = memory.marks.map((mark) => mark.id);',
      'const marks = []; marks.push(1); marks.length = 0;',
      'if (model.pendingCauses.has("expand")) use(memory.counters.requests);',
    ].join('\n');
    const lines = (name: string, shape: WriteShape) => writesIn('sample.ts', sample, name, shape).map((w) => w.line);
    expect(lines('marks', arrays)).toEqual([1, 2, 3, 4, 5, 6, 7, 11]);
    expect(lines('counters', { members: true })).toEqual([8, 9, 12]);
    expect(lines('pendingCauses', { mutators: SET_MUTATORS })).toEqual([10, 12]);
  });
});
