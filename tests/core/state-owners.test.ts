import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ARRAY_MUTATORS, filesWriting, SET_MUTATORS, type WriteShape, writesIn } from './support/state-writes.ts';

const root = resolve(import.meta.dirname, '../..');

/**
 * The code that can hold a session's state: core, and the application and composition above
 * it. The adapters hold other things under the same names (a landing's own counters, a
 * writer's own fold ids) and reach the state only through core's read-only views.
 */
const SCANNED = ['core', 'application', 'composition'];

const ENGINE_MEMORY = 'core/state/engine-memory.ts';
const SESSION_MODEL = 'core/state/session-model.ts';

const LIST = { mutators: ARRAY_MUTATORS, members: true };
const SET = { mutators: SET_MUTATORS };
const RECORD = { members: true };
const VALUE = {};

/**
 * Each piece of a session's state has one owner: the one file that changes it. Everyone else
 * calls the owner's methods and reads a read-only view, so a change to how a piece may move
 * is made in one place. Every field of `EngineMemory` and `SessionModel` is listed (the
 * memory's `sessionId` is `readonly`, set once when it is made).
 */
const OWNED: readonly (readonly [name: string, owner: string, shape: WriteShape])[] = [
  ...(
    [
      ['revision', VALUE],
      ['epoch', VALUE],
      ['noticeShownSinceRewrite', VALUE],
      ['spillPolicy', RECORD],
      ['foldIds', LIST],
      ['marks', LIST],
      ['pins', SET],
      ['holds', LIST],
      ['inserts', LIST],
      ['ephemeralPeeks', LIST],
      ['lostFolds', LIST],
      ['transcriptAnchor', RECORD],
      ['requestContext', RECORD],
      ['counters', RECORD],
    ] as const
  ).map(([name, shape]) => [name, ENGINE_MEMORY, { ...shape, holder: 'EngineMemory' }] as const),
  ...(
    [
      ['pendingCauses', SET],
      ['ledger', LIST],
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
      ].map((name) => [name, VALUE] as const),
    ] as const
  ).map(([name, shape]) => [name, SESSION_MODEL, { ...shape, holder: 'SessionModel' }] as const),
];

describe('one owner per piece of session state', () => {
  for (const [name, owner, shape] of OWNED) {
    it(`${name} is written only in ${owner}`, () => {
      expect(filesWriting(root, SCANNED, name, shape)).toEqual([owner]);
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

  it("counts `this.<name>` inside another class as that class's own field, unless a plain function rebinds it", () => {
    const sample = [
      'class FoldLattice { revision = 0; readonly seen = new Set(() => { this.revision += 1; }); }',
      'class EngineMemory { #revision = 0; savedAs(revision: number) { this.#revision = revision; } }',
      'class Other { bump() { const f = function (this: EngineMemory) { this.revision = 1; }; } }',
      'memory.revision = 2;',
      'this.revision = 3;',
    ].join('\n');
    const lines = writesIn('sample.ts', sample, 'revision', { holder: 'EngineMemory' }).map((w) => w.line);
    expect(lines).toEqual([2, 3, 4, 5]);
  });
});
