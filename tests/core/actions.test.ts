import { beforeEach, describe, expect, it } from 'vitest';
import { FoldError } from '../../core/fold-error.ts';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import { serialize } from '../../testing/window-checks.ts';
import { driveSession } from '../support/drive-session.ts';

let runtime: FoldRuntime;

beforeEach(async () => {
  // Pinned to the band without a floor: the refusals below need a standing chapter fold at a known depth.
  ({ runtime } = await driveSession({ seed: 21, steps: 90, settings: { scheduling: 'band', rawFloorTokens: 0 } }));
});

function stateOf(target: FoldRuntime): string {
  return JSON.stringify({
    memory: target.view.memory.snapshot(target.view.lattice.expanded, []),
    frozen: serialize(target.view.frozen ?? []),
    causes: [...target.view.pendingCauses],
  });
}

async function refusal(call: unknown): Promise<FoldError> {
  const before = stateOf(runtime);
  const error = await runtime.act(call).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!FoldError.isInstance(error))
    throw new Error(`expected a FoldError for ${JSON.stringify(call)}, got ${String(error)}`);
  expect(stateOf(runtime)).toBe(before);
  return error;
}

function standingFold(): string {
  return runtime.view.visibleFolds[0]!.record.id;
}

function pendingMark(): string {
  const mark = runtime.view.memory.marks[0];
  if (mark === undefined) throw new Error('the driven session left no pending mark');
  return mark.id;
}

describe('every action refuses bad input with a named error and leaves state unchanged', () => {
  it.each([
    ['not an object', 'status', 'ACTION.INVALID_ARGUMENT'],
    ['unknown action', { action: 'fold', id: 'x' }, 'ACTION.UNKNOWN'],
    ['commit is not a verb', { action: 'commit' }, 'ACTION.UNKNOWN'],
    ['extra argument', { action: 'status', id: 'x' }, 'ACTION.INVALID_ARGUMENT'],
    ['wrong type of id', { action: 'peek', id: 42 }, 'ACTION.INVALID_ARGUMENT'],
    ['negative offset', { action: 'peek', id: 'fold_x', offset: -1 }, 'ACTION.INVALID_ARGUMENT'],
    ['tiny slice', { action: 'peek', id: 'fold_x', bytes: 10 }, 'ACTION.INVALID_ARGUMENT'],
    ['ephemeral not boolean', { action: 'peek', id: 'fold_x', ephemeral: 'yes' }, 'ACTION.INVALID_ARGUMENT'],
    ['ids not an array', { action: 'pin', ids: 'u000001' }, 'ACTION.INVALID_ARGUMENT'],
    ['empty ids', { action: 'unpin', ids: [] }, 'ACTION.INVALID_ARGUMENT'],
    ['duplicate ids', { action: 'pin', ids: ['a', 'a'] }, 'ACTION.INVALID_ARGUMENT'],
    ['huge id', { action: 'expand', id: 'f'.repeat(10_000) }, 'ACTION.INVALID_ARGUMENT'],
    ['bad detail', { action: 'status', detail: 'all' }, 'ACTION.INVALID_ARGUMENT'],
  ])('%s', async (_label, call, code) => {
    expect((await refusal(call)).code).toBe(code);
  });

  it('unknown ids, path-like ids and ids of another session', async () => {
    for (const id of ['fold_000000000000000000000000', '../../etc/passwd', '/abs/path', 'fold_of_session_2']) {
      for (const action of ['peek', 'expand', 'refold', 'unmark']) {
        const error = await refusal({ action, id });
        expect(error.code).toBe('ACTION.UNKNOWN_ID');
        expect(error.message).toContain(action);
      }
      expect((await refusal({ action: 'brief', id, text: 'words' })).code).toBe('ACTION.UNKNOWN_ID');
      expect((await refusal({ action: 'pin', ids: [id] })).code).toBe('ACTION.UNKNOWN_ID');
    }
  });

  it('brief on a standing fold is refused; over-long and empty briefs are refused', async () => {
    expect((await refusal({ action: 'brief', id: standingFold(), text: 'new words' })).code).toBe('ACTION.NOT_PENDING');
    const mark = pendingMark();
    expect((await refusal({ action: 'brief', id: mark, text: 'x'.repeat(2001) })).message).toMatch(/at most 2000/);
    expect((await refusal({ action: 'brief', id: mark, text: '   ' })).code).toBe('ACTION.INVALID_ARGUMENT');
  });

  it('reboundary that would partially overlap a standing fold, or reach the open unit, is refused', async () => {
    const fold = runtime.view.visibleFolds.find((placed) => placed.record.kind === 'chapter')!;
    // The chapter's last entry: a reboundary snaps to whole units, and the last unit starts inside the chapter.
    const inside = runtime.view.index.entries[fold.last]!.id;
    const after = runtime.view.index.entries[fold.last + 2]!.id;
    expect((await refusal({ action: 'reboundary', ids: [inside, after] })).code).toBe('ACTION.OVERLAP');
    const newest = runtime.view.index.entries[runtime.view.index.length - 1]!.id;
    expect((await refusal({ action: 'reboundary', ids: [newest] })).code).toBe('ACTION.PROTECTED');
  });

  it('expand is refused on an expanded fold, on a hidden child, and over maxTarget', async () => {
    const chapter = runtime.view.visibleFolds.find((placed) =>
      placed.record.parts.some((part) => part.kind === 'fold'),
    );
    if (chapter !== undefined) {
      const child = chapter.record.parts.find((part) => part.kind === 'fold')!;
      if (child.kind === 'fold')
        expect((await refusal({ action: 'expand', id: child.foldId })).code).toBe('ACTION.NOT_EXPANDED');
    }
    // Outermost first, so each child becomes visible before it is tried.
    const depth = (id: string): number => {
      const parent = runtime.view.lattice.parentOf(id);
      return parent === undefined ? 0 : 1 + depth(parent);
    };
    const all = [...runtime.view.lattice.allRecords()].map((record) => record.id).sort((a, b) => depth(a) - depth(b));
    let refusedForBudget: FoldError | undefined;
    for (const id of all) {
      try {
        await runtime.act({ action: 'expand', id });
      } catch (error) {
        if (FoldError.isInstance(error) && error.code === 'ACTION.OVER_BUDGET') {
          refusedForBudget = error;
          break;
        }
        throw error;
      }
    }
    expect(refusedForBudget?.message).toMatch(/maxTarget/);
    const expandedId = [...runtime.view.lattice.expanded][0]!;
    expect((await refusal({ action: 'expand', id: expandedId })).code).toBe('ACTION.ALREADY_EXPANDED');
  });

  it('unpin of something not pinned, refold of a collapsed fold, peek past the end', async () => {
    expect((await refusal({ action: 'unpin', ids: [runtime.view.index.entries[2]!.id] })).code).toBe(
      'ACTION.UNKNOWN_ID',
    );
    expect((await refusal({ action: 'refold', id: standingFold() })).code).toBe('ACTION.NOT_EXPANDED');
    expect((await refusal({ action: 'peek', id: standingFold(), offset: 10_000_000 })).code).toBe(
      'ACTION.INVALID_ARGUMENT',
    );
  });
});

describe('actions that succeed', () => {
  it('every curation answer carries the two numbers', async () => {
    const mark = pendingMark();
    const answer = await runtime.act({ action: 'brief', id: mark, text: 'The parser audit of stage three.' });
    expect(answer.numbers?.nextCommitMustFree).toBeGreaterThanOrEqual(0);
    expect(answer.numbers?.standingMarksWillFree).toBeGreaterThan(0);
    expect(answer.text).toMatch(/next commit must free ≈\d+ tokens; standing marks will free ≈\d+ tokens/);
  });

  it('a supplied brief lands verbatim with provenance supplied', async () => {
    const mark = pendingMark();
    await runtime.act({ action: 'brief', id: mark, text: 'My own words.' });
    runtime.requestCommit('user-fold', [mark]);
    await runtime.project(runtime.view.index.entries);
    const record = runtime.view.lattice.record(mark)!;
    expect(record.brief).toBe('My own words.');
    expect(record.provenance).toBe('supplied');
    expect(
      runtime.view.frozen!.some(
        (message) =>
          (message.kind === 'synthetic' || message.kind === 'stub') && message.text.includes('My own words.'),
      ),
    ).toBe(true);
  });

  it('peek slices exact verified bytes and pages with nextOffset', async () => {
    const id = standingFold();
    const whole = await runtime.act({ action: 'peek', id, offset: 0, bytes: 200_000 });
    const document = whole.text.slice(0, whole.text.lastIndexOf('\n['));
    const first = await runtime.act({ action: 'peek', id, offset: 0, bytes: 1024 });
    const next = first.data.nextOffset as number;
    const second = await runtime.act({ action: 'peek', id, offset: next, bytes: 1024 });
    const joined =
      first.text.slice(0, first.text.lastIndexOf('\n[')) + second.text.slice(0, second.text.lastIndexOf('\n['));
    expect(document.startsWith(joined)).toBe(true);
    const head = await runtime.act({ action: 'peek', id, bytes: 1024 });
    expect(head.text).toMatch(/exact source bytes omitted/);
  });

  it('status reads without touching the window; tree lists every fold with depth', async () => {
    const before = stateOf(runtime);
    const answer = await runtime.act({ action: 'status', detail: 'tree' });
    expect(stateOf(runtime)).toBe(before);
    const tree = answer.data.tree as { depth: number }[];
    expect(tree.length).toBe(runtime.view.lattice.size);
    expect(tree.some((row) => row.depth > 0)).toBe(true);
  });

  it('unmark holds a span raw; reboundary re-cuts and can return to raw', async () => {
    const mark =
      runtime.view.memory.marks.find((candidate) => candidate.kind === 'chapter') ?? runtime.view.memory.marks[0]!;
    await runtime.act({ action: 'unmark', id: mark.id });
    expect(runtime.view.memory.markById(mark.id)).toBeUndefined();
    expect(runtime.view.memory.holds.length).toBe(1);
    const cut = await runtime.act({ action: 'reboundary', ids: [mark.firstEntryId, mark.lastEntryId] });
    expect(runtime.view.memory.markById(cut.data.id as string)).toBeDefined();
    expect(runtime.view.memory.holds.length).toBe(0);
    await runtime.act({ action: 'reboundary', ids: [cut.data.id as string] });
    expect(runtime.view.memory.markById(cut.data.id as string)).toBeUndefined();
  });
});

describe('unmark keeps its promise', () => {
  it('no pending mark around or inside a withdrawn span can fold it later', async () => {
    const chapter = runtime.view.memory.marks.find(
      (mark) =>
        mark.kind === 'chapter' &&
        runtime.view.memory.marks.some(
          (inner) =>
            inner.kind === 'tool' &&
            runtime.view.index.positionOf(inner.firstEntryId)! > runtime.view.index.positionOf(mark.firstEntryId)! &&
            runtime.view.index.positionOf(inner.lastEntryId)! <= runtime.view.index.positionOf(mark.lastEntryId)!,
        ),
    );
    const target = chapter ?? runtime.view.memory.marks.find((mark) => mark.kind === 'chapter')!;
    const first = runtime.view.index.positionOf(target.firstEntryId)!;
    const last = runtime.view.index.positionOf(target.lastEntryId)!;
    // Folds that already stood inside the span stay as they were; nothing new may hide.
    const hiddenBefore = new Set<number>();
    for (let position = first; position <= last; position += 1)
      if (runtime.view.lattice.isHidden(position)) hiddenBefore.add(position);
    await runtime.act({ action: 'unmark', id: target.id });
    for (const mark of runtime.view.memory.marks) {
      const markFirst = runtime.view.index.positionOf(mark.firstEntryId)!;
      const markLast = runtime.view.index.positionOf(mark.lastEntryId)!;
      expect(markLast < first || last < markFirst).toBe(true);
    }
    runtime.requestCommit('user-fold');
    await runtime.project(runtime.view.index.entries);
    for (let position = first; position <= last; position += 1)
      expect(runtime.view.lattice.isHidden(position)).toBe(hiddenBefore.has(position));
  });
});
