import { describe, expect, it } from 'vitest';
import {
  FOLD_LIST_MARK,
  foldListText,
  foldsBehindCut,
  withoutFoldList,
} from '../../adapters/hosts/pi/compaction-fold-list.ts';
import type { FoldPart, FoldRecord } from '../../ports/fold-records.ts';

function record(id: string, firstEntryId: string, lastEntryId: string, parts: FoldPart[] = []): FoldRecord {
  return {
    schemaVersion: 1,
    id,
    kind: parts.some((part) => part.kind === 'fold') ? 'consolidation' : 'chapter',
    origin: 'runtime',
    firstEntryId,
    lastEntryId,
    parts,
    sourceSha256: '0'.repeat(64),
    sourceChars: 1000,
    entryCount: 2,
    brief: `brief of ${id}`,
    provenance: 'deterministic',
    epoch: 1,
  };
}

function latticeOf(records: FoldRecord[], expanded: string[] = []) {
  const byId = new Map(records.map((item) => [item.id, item]));
  const children = new Set(
    records.flatMap((item) => item.parts.flatMap((part) => (part.kind === 'fold' ? [part.foldId] : []))),
  );
  return {
    rootRecords: () => records.filter((item) => !children.has(item.id)),
    record: (id: string) => byId.get(id),
    expanded: new Set(expanded),
  };
}

const branch = ['e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6', 'e7'].map((id) => ({ id }));

describe('pi: the folds a /compact summarises away (B6.1)', () => {
  it('lists folds that start before the cut, in branch order, and not those after it or off the branch', () => {
    const folds = [
      record('fold_kept', 'e5', 'e6'),
      record('fold_straddles', 'e3', 'e5'),
      record('fold_first', 'e0', 'e1'),
      record('fold_elsewhere', 'x1', 'x2'),
      // An entry another extension rewrote carries a suffix on its id.
      record('fold_rewritten', 'e2~0123456789ab', 'e2~0123456789ab'),
    ];
    const listed = foldsBehindCut(latticeOf(folds), branch, 'e4').map((fold) => fold.record.id);
    expect(listed).toEqual(['fold_first', 'fold_rewritten', 'fold_straddles']);
  });

  it('names a collapsed fold for the folds inside it, and an expanded one with its children', () => {
    const childA = record('fold_a', 'e0', 'e1', [{ kind: 'entry', entryId: 'e0', sha256: '0'.repeat(64), chars: 500 }]);
    const childB = record('fold_b', 'e2', 'e3');
    const parent = record('fold_parent', 'e0', 'e3', [
      { kind: 'fold', foldId: 'fold_a' },
      { kind: 'fold', foldId: 'fold_b' },
    ]);
    const collapsed = foldsBehindCut(latticeOf([parent, childA, childB]), branch, 'e6');
    expect(collapsed.map((fold) => fold.record.id)).toEqual(['fold_parent']);
    const expanded = foldsBehindCut(latticeOf([parent, childA, childB], ['fold_parent']), branch, 'e6');
    expect(expanded.map((fold) => [fold.record.id, fold.expanded])).toEqual([
      ['fold_parent', true],
      ['fold_a', false],
      ['fold_b', false],
    ]);
    expect(foldListText(expanded, 'pi_fold_context')).toContain(
      '- fold_parent (consolidation, 2 entries, 1000 chars, was expanded)',
    );
  });

  it('keeps every id of a long list and shortens the briefs so the list stays bounded', () => {
    const many = Array.from({ length: 400 }, (_, position) => ({
      record: { ...record(`fold_${String(position).padStart(24, '0')}`, 'e0', 'e1'), brief: 'word '.repeat(400) },
      expanded: false,
    }));
    const text = foldListText(many, 'pi_fold_context');
    for (const { record: item } of many) expect(text).toContain(`- ${item.id} (`);
    // 400 lines of id and facts (about 90 chars each) plus at most 24,000 chars of briefs.
    expect(text.length).toBeLessThan(400 * 90 + 24_000 + 1_000);
    const few = foldListText(many.slice(0, 3), 'pi_fold_context');
    expect(few.split('\n').at(-1)!.length).toBeGreaterThan(300);
  });

  it("takes an earlier list out of the summary Pi's summariser updates", () => {
    const summary = `Pi's summary.\n\n${foldListText([{ record: record('fold_x', 'e0', 'e1'), expanded: false }], 'pi_fold_context')}`;
    expect(withoutFoldList(summary)).toBe("Pi's summary.");
    expect(withoutFoldList("Pi's summary only.")).toBe("Pi's summary only.");
    expect(summary).toContain(FOLD_LIST_MARK);
  });
});
