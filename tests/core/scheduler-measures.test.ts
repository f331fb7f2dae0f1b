import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { displayedChars } from '../../core/commit/plan/planner.ts';
import { DisplayedCharsMemo } from '../../core/commit/policy/displayed-chars-memo.ts';
import { rawFloorStart } from '../../core/commit/policy/raw-floor.ts';
import { FoldError } from '../../core/fold-error.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { FoldLattice } from '../../core/folds/fold-lattice.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { TranscriptIndex } from '../../core/transcript/transcript-index.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import {
  assistantEntry,
  seededRandom,
  sourceLikeText,
  toolResultEntry,
  userEntry,
} from '../../testing/synthetic-session.ts';

/**
 * The cost scheduler measures the same things on every request: where the working-set floor
 * starts, and what the kept prefix and each candidate mark's span show. It finds the floor by
 * a binary search over running sums and keeps each span's measure until the forest or the
 * branch moves. These tests hold both to the walks they replace, across commits, expands,
 * refolds and rewrites of history.
 */

/** The floor as a walk back from the newest entry: the rule rawFloorStart states. */
function floorByWalk(index: TranscriptIndex, floorTokens: number, charsPerToken: number): number {
  if (floorTokens <= 0) return index.length;
  const floorChars = floorTokens * Math.max(4, charsPerToken);
  let chars = 0;
  for (let position = index.length - 1; position >= 0; position -= 1) {
    const shown = index.windowChars[position]!;
    chars += Math.min(shown, index.entries[position]!.contentChars ?? shown);
    if (chars >= floorChars) return position;
  }
  return 0;
}

function batch(step: number, random: () => number, contentShare = 1): TranscriptEntry[] {
  const call = { id: `c${step}`, name: 'read', arguments: { path: `src/f${step}.c` } };
  const result = toolResultEntry(
    `r${step}`,
    call.id,
    'read',
    sourceLikeText(random, 600 + Math.floor(random() * 2_400), `f${step}`),
  );
  // Some hosts count less than the bytes (bookkeeping in them is not read).
  const withContent =
    contentShare < 1 ? { ...result, contentChars: Math.floor(result.bytes.length * contentShare) } : result;
  return [assistantEntry(`a${step}`, `step ${step}`, [call]), withContent];
}

describe('the working-set floor found by halving', () => {
  it('starts where a walk back from the newest entry would, on every length, floor and rewrite', () => {
    const random = seededRandom(41);
    const index = new TranscriptIndex();
    const entries: TranscriptEntry[] = [userEntry('u0', 'go')];
    for (let step = 1; step <= 120; step += 1) {
      entries.push(...batch(step, random, random() < 0.3 ? 0.5 : 1));
      // Now and then the host rewrites history: the branch loses its newest entries.
      if (step % 17 === 0) entries.splice(entries.length - 2 - Math.floor(random() * 6));
      index.ingest(entries);
      for (const floorTokens of [0, 1, 50, 500, 5_000, 50_000, 10_000_000]) {
        for (const charsPerToken of [2.5, 4, 6.2]) {
          expect(
            rawFloorStart(index, floorTokens, charsPerToken),
            `step ${step}, floor ${floorTokens}, ${charsPerToken} chars per token`,
          ).toBe(floorByWalk(index, floorTokens, charsPerToken));
        }
      }
    }
    expect(rawFloorStart(new TranscriptIndex(), 100, 4)).toBe(0);
  });

  it('counts an entry that brings the floor to exactly its size as inside it', () => {
    const index = new TranscriptIndex();
    index.ingest(
      Array.from({ length: 10 }, (_, position) => ({
        ...userEntry(`u${position}`, 'x'.repeat(300)),
        contentChars: 100,
      })),
    );
    // 100 tokens at 4 chars: the newest four entries read exactly 400 chars.
    expect(rawFloorStart(index, 100, 4)).toBe(6);
    expect(floorByWalk(index, 100, 4)).toBe(6);
  });

  it('refuses an entry whose contentChars is not a non-negative integer under 2^31, and keeps the index as it was', () => {
    const index = new TranscriptIndex();
    index.ingest([userEntry('u0', 'go')]);
    for (const contentChars of [-1, 2.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, 1e300]) {
      const bad = { ...userEntry('u1', 'next'), contentChars };
      expect(() => index.ingest([userEntry('u0', 'go'), bad])).toThrowError(
        /contentChars must be a non-negative integer/,
      );
      expect(index.length).toBe(1);
      expect(index.readCharsBefore).toEqual([0, index.windowChars[0]]);
    }
  });
});

describe('the lattice revision', () => {
  it('moves on every change to what is expanded, and not on a change that is none', () => {
    const lattice = new FoldLattice(new TranscriptIndex());
    const moves = (change: () => void): boolean => {
      const before = lattice.revision;
      change();
      return lattice.revision !== before;
    };
    expect(moves(() => lattice.expanded.add('f1'))).toBe(true);
    expect(moves(() => lattice.expanded.add('f1'))).toBe(false);
    expect(moves(() => lattice.expanded.delete('f2'))).toBe(false);
    expect(moves(() => lattice.expanded.delete('f1'))).toBe(true);
    expect(moves(() => lattice.expanded.clear())).toBe(false);
    lattice.expanded.add('f3');
    expect(moves(() => lattice.expanded.clear())).toBe(true);
    expect(moves(() => lattice.resolve())).toBe(true);
  });
});

describe("the scheduler's span measures, kept between commits, and the folds around each position", () => {
  it('start over when the branch loses entries, even where no fold moved', () => {
    const index = new TranscriptIndex();
    const lattice = new FoldLattice(index);
    const memo = new DisplayedCharsMemo({ index, lattice, settings: { toolName: 'pi_fold' } });
    const random = seededRandom(5);
    const entries = [userEntry('u0', 'go'), ...batch(1, random), ...batch(2, random)];
    index.ingest(entries);
    expect(memo.measure(0, 4)).toBe(displayedChars({ index, toolName: 'pi_fold' }, lattice, 0, 4));
    // The newest result is replaced by one of another size, under another id.
    index.ingest([...entries.slice(0, 4), toolResultEntry('r2-again', 'c2', 'read', 'short')]);
    expect(memo.measure(0, 4)).toBe(displayedChars({ index, toolName: 'pi_fold' }, lattice, 0, 4));
  });

  it('answer as a fresh walk would after every request, expand, refold and rewrite of history', async () => {
    const runtime = await FoldRuntime.open({
      sessionId: 'scheduler-measures',
      settings: resolveSettings({ providerInputBudget: 40_000, scheduling: 'cost', rawFloorTokens: 4_000 }),
      foldStore: new MemoryFoldStore(),
      costModel: createCharsCostModel(),
    });
    const session = runtime.view;
    const memo = new DisplayedCharsMemo(session);
    const random = seededRandom(7);
    const pick = (below: number): number => Math.floor(random() * below);
    const entries: TranscriptEntry[] = [userEntry('u0', 'go')];
    // Spans asked again and again, as the scheduler asks its candidates' spans, and new ones.
    const spans: [number, number][] = [];
    const check = (when: string): void => {
      const length = session.index.length;
      if (spans.length < 40 && length > 0) {
        const first = pick(length);
        spans.push([first, Math.min(length - 1, first + pick(30))]);
        spans.push([0, pick(length)]);
      }
      // The folds around each position (the frontier asks on every request) as a scan of every placed fold finds them.
      const placedFolds = [...session.lattice.allRecords()]
        .map((record) => session.lattice.placement(record.id))
        .filter((placed) => placed !== undefined);
      for (let position = 0; position < length + 2; position += 1) {
        const scanned = placedFolds
          .filter((placed) => placed.first <= position && position <= placed.last)
          .sort((a, b) => a.first - b.first || b.last - a.last);
        expect(
          session.lattice.enclosing(position).map((placed) => placed.record.id),
          `${when}: folds around ${position}`,
        ).toEqual(scanned.map((placed) => placed.record.id));
      }
      for (const [first, last] of spans) {
        if (last >= length) continue;
        const fresh = displayedChars(
          { index: session.index, toolName: session.settings.toolName },
          session.lattice,
          first,
          last,
        );
        expect(memo.measure(first, last), `${when}: span ${first}..${last}`).toBe(fresh);
      }
    };
    let landed = 0;
    let expandedSome = 0;
    let rewrites = 0;
    for (let step = 1; step <= 160; step += 1) {
      entries.push(...batch(step, random));
      if (step % 29 === 0) {
        entries.splice(entries.length - 2 - 2 * pick(4));
        rewrites += 1;
      }
      const result = await runtime.project(entries);
      runtime.recordUsage({ input: result.ledger.estimatedTokens, cacheRead: 0, cacheWrite: 0, output: 20 });
      landed += result.ledger.foldsLanded;
      check(`request ${step}`);
      const collapsed = session.visibleFolds.filter((placed) => !session.lattice.expanded.has(placed.record.id));
      if (collapsed.length > 0 && step % 5 === 0) {
        const target = collapsed[pick(collapsed.length)]!.record.id;
        try {
          await runtime.act({ action: 'expand', id: target });
          expandedSome += 1;
        } catch (error) {
          if (!FoldError.isInstance(error) || !error.code.startsWith('ACTION.')) throw error;
        }
        check(`after expanding ${target}`);
      }
      const open = [...session.lattice.expanded];
      if (open.length > 0 && step % 7 === 0) {
        try {
          await runtime.act({ action: 'refold', id: open[pick(open.length)]! });
        } catch (error) {
          if (!FoldError.isInstance(error) || !error.code.startsWith('ACTION.')) throw error;
        }
        check(`after a refold at step ${step}`);
      }
    }
    // The run met what the memo must follow: commits, expands and rewrites of history.
    expect(landed).toBeGreaterThan(0);
    expect(expandedSome).toBeGreaterThan(0);
    expect(rewrites).toBeGreaterThan(0);
  });
});
