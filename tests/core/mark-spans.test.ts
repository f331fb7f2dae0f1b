import { describe, expect, it } from 'vitest';
import { FoldLattice } from '../../core/folds/fold-lattice.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { EngineMemory } from '../../core/state/engine-memory.ts';
import { Frontier } from '../../core/state/frontier.ts';
import { MarkSpans } from '../../core/state/mark-spans.ts';
import { TranscriptIndex } from '../../core/transcript/transcript-index.ts';
import type { PendingMarkV1 } from '../../ports/fold-records.ts';
import { assistantEntry, seededRandom, toolResultEntry, userEntry } from '../../testing/synthetic-session.ts';

/** The rule as the frontier states it, looking every mark up each time. */
function blocksByLookup(
  positionOf: (id: string) => number | undefined,
  marks: readonly PendingMarkV1[],
  first: number,
  last: number,
): boolean {
  for (const mark of marks) {
    const markFirst = positionOf(mark.firstEntryId);
    const markLast = positionOf(mark.lastEntryId);
    if (markFirst === undefined || markLast === undefined || markFirst > last || first > markLast) continue;
    if (mark.kind !== 'tool' || (markFirst === first && markLast === last)) return true;
  }
  return false;
}

const KINDS = ['tool', 'chapter', 'consolidation'] as const;

describe('MarkSpans, the marks’ places during one frontier pass', () => {
  it('answers as a lookup of every mark would, as marks are pushed, the list is replaced, entries arrive and history is rewritten', () => {
    const random = seededRandom(23);
    const pick = (below: number): number => Math.floor(random() * below);
    for (let trial = 0; trial < 40; trial += 1) {
      // Ids beyond the branch stand for marks whose entries left it (or have not arrived yet);
      // a rewrite of history (a new generation) moves every entry to another position.
      const branch = {
        length: 20 + pick(40),
        generation: 0,
        shift: 0,
        positionOf: (id: string): number | undefined => {
          const position = Number(id.slice(1)) + branch.shift;
          return position >= 0 && position < branch.length ? position : undefined;
        },
      };
      const positionOf = branch.positionOf;
      const length = branch.length;
      const newMark = (): PendingMarkV1 => {
        const first = pick(length + 5);
        const last = first + pick(4);
        return {
          id: `fold_${trial}_${first}_${last}`,
          kind: KINDS[pick(3)]!,
          origin: 'runtime',
          firstEntryId: `e${first}`,
          lastEntryId: `e${last}`,
          cutAtRequest: 1,
        };
      };
      let marks: PendingMarkV1[] = Array.from({ length: pick(12) }, newMark);
      const spans = new MarkSpans(branch);
      for (let question = 0; question < 60; question += 1) {
        const change = pick(8);
        if (change === 0) marks.push(newMark());
        if (change === 1) marks = marks.filter(() => random() < 0.7);
        if (change === 2) marks = [...marks, newMark()];
        // Entries arrive: a mark that was off the branch may be on it now.
        if (change === 3) branch.length += 1 + pick(4);
        if (change === 4) {
          branch.generation += 1;
          branch.shift = pick(3) - 1;
        }
        const first = pick(branch.length);
        const last = Math.min(branch.length - 1, first + pick(4));
        expect(spans.blocks(marks, first, last), `trial ${trial}, question ${question}`).toBe(
          blocksByLookup(positionOf, marks, first, last),
        );
      }
    }
  });

  it('a tool mark blocks only its own span; any other kind blocks every span it overlaps; a mark off the branch blocks none', () => {
    const positionOf = (id: string): number | undefined => (id === 'gone' ? undefined : Number(id.slice(1)));
    const mark = (kind: PendingMarkV1['kind'], first: string, last: string): PendingMarkV1 => ({
      id: `fold_${kind}${first}${last}`,
      kind,
      origin: 'runtime',
      firstEntryId: first,
      lastEntryId: last,
      cutAtRequest: 1,
    });
    const tool = [mark('tool', 'e3', 'e5')];
    expect(new MarkSpans({ positionOf, length: 100, generation: 0 }).blocks(tool, 3, 5)).toBe(true);
    expect(new MarkSpans({ positionOf, length: 100, generation: 0 }).blocks(tool, 2, 5)).toBe(false);
    const chapter = [mark('tool', 'e0', 'e1'), mark('chapter', 'e3', 'e5')];
    expect(new MarkSpans({ positionOf, length: 100, generation: 0 }).blocks(chapter, 5, 8)).toBe(true);
    expect(new MarkSpans({ positionOf, length: 100, generation: 0 }).blocks(chapter, 6, 8)).toBe(false);
    expect(
      new MarkSpans({ positionOf, length: 100, generation: 0 }).blocks([mark('chapter', 'e2', 'gone')], 0, 50),
    ).toBe(false);
  });
});

describe('the frontier leaves a span a pending mark already covers', () => {
  it("an agent's chapter mark over a closed batch keeps the tool rung off it; the next batch is cut", () => {
    const big = 'x'.repeat(9_000);
    const index = new TranscriptIndex();
    index.ingest([
      userEntry('u0', 'read two files'),
      assistantEntry('a1', '', [{ id: 'c1', name: 'read', arguments: { path: 'one' } }]),
      toolResultEntry('r1', 'c1', 'read', big),
      assistantEntry('a2', '', [{ id: 'c2', name: 'read', arguments: { path: 'two' } }]),
      toolResultEntry('r2', 'c2', 'read', big),
      userEntry('u3', 'thanks'),
    ]);
    const memory = new EngineMemory('s1');
    memory.addMark({
      id: 'fold_000000000000000000000001',
      kind: 'chapter',
      origin: 'agent',
      firstEntryId: 'a1',
      lastEntryId: 'r1',
      cutAtRequest: 1,
    });
    const lattice = new FoldLattice(index);
    const cuts = new Frontier().pass({
      index,
      lattice,
      memory,
      settings: resolveSettings({}),
      visibleFolds: [],
      request: 2,
    });
    const toolCuts = cuts.filter((mark) => mark.kind === 'tool').map((mark) => [mark.firstEntryId, mark.lastEntryId]);
    expect(toolCuts).toEqual([['r2', 'r2']]);
  });
});
