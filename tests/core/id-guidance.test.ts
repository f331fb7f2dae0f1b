import { beforeEach, describe, expect, it } from 'vitest';
import { formatStatus, statusReport } from '../../core/actions/status-action.ts';
import { FoldError } from '../../core/fold-error.ts';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import { driveSession } from '../support/drive-session.ts';

/** The agent is pointed at ids that work, and pin takes the ids it sees. */
let runtime: FoldRuntime;

beforeEach(async () => {
  // The band without a floor leaves the standing folds and marks these id checks walk.
  ({ runtime } = await driveSession({ seed: 21, steps: 90, settings: { scheduling: 'band', rawFloorTokens: 0 } }));
});

async function refused(call: unknown): Promise<FoldError> {
  const error = await runtime.act(call).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!FoldError.isInstance(error)) throw new Error(`expected a refusal of ${JSON.stringify(call)}`);
  return error;
}

function positionOf(id: string): number {
  return runtime.view.index.positionOf(id)!;
}

describe('status and refusals point at what can be read', () => {
  it('status lists the peekable folds before the pending marks', () => {
    expect(runtime.view.visibleFolds.length).toBeGreaterThan(0);
    expect(runtime.view.memory.marks.length).toBeGreaterThan(0);
    const text = formatStatus(statusReport(runtime.view));
    const firstFold = text.indexOf(runtime.view.visibleFolds[0]!.record.id);
    const firstMark = text.indexOf(runtime.view.memory.marks[0]!.id);
    expect(firstFold).toBeGreaterThan(0);
    expect(firstMark).toBeGreaterThan(firstFold);
    expect(text.indexOf('visible folds')).toBeLessThan(text.indexOf('pending marks'));
  });

  it('peeking or expanding a pending mark names the committed folds nearest to it, nearest first', async () => {
    const mark = runtime.view.memory.marks[0]!;
    const markFirst = positionOf(mark.firstEntryId);
    const markLast = positionOf(mark.lastEntryId);
    // Independent of the helper: the distance of every placed fold to the mark's span.
    const distances = [...runtime.view.lattice.allRecords()]
      .map((record) => runtime.view.lattice.placement(record.id))
      .filter((placed) => placed !== undefined)
      .map((placed) => ({
        id: placed.record.id,
        distance:
          placed.last < markFirst ? markFirst - placed.last : placed.first > markLast ? placed.first - markLast : 0,
      }))
      .sort((a, b) => a.distance - b.distance);
    for (const verb of ['peek', 'expand']) {
      const error = await refused({ action: verb, id: mark.id });
      expect(error.code).toBe('ACTION.NOT_COMMITTED');
      const named = (error.details as { nearestFolds: string[] }).nearestFolds;
      expect(named.length).toBe(Math.min(2, distances.length));
      expect(distances.find((row) => row.id === named[0])!.distance).toBe(distances[0]!.distance);
      expect(error.message).toContain(`{"action":"${verb}","id":"${named[0]}"}`);
      // The named fold really is peekable.
      if (verb === 'peek')
        expect((await runtime.act({ action: 'peek', id: named[0]! })).text.length).toBeGreaterThan(0);
    }
  });
});

describe('pin takes the ids the agent sees', () => {
  it('status with detail "tree" lists raw entry ids, and pinning one of them works', async () => {
    const report = statusReport(runtime.view, 'tree');
    expect(report.pinnable!.rows.length).toBeGreaterThan(0);
    const listed = report.pinnable!.rows.at(-1)!.entryId;
    expect(runtime.view.lattice.isHidden(positionOf(listed))).toBe(false);
    for (const row of report.pinnable!.rows) expect(runtime.view.lattice.isHidden(positionOf(row.entryId))).toBe(false);
    expect(formatStatus(report)).toContain(`- ${listed} `);
    await runtime.act({ action: 'pin', ids: [listed] });
    expect(runtime.view.memory.pins.has(listed)).toBe(true);
  });

  it("a pending mark's id pins every entry of its span and withdraws the mark", async () => {
    const mark = runtime.view.memory.marks[0]!;
    const first = positionOf(mark.firstEntryId);
    const last = positionOf(mark.lastEntryId);
    const covered = runtime.view.index.entries.slice(first, last + 1).map((entry) => entry.id);
    const answer = await runtime.act({ action: 'pin', ids: [mark.id] });
    for (const entryId of covered) expect(runtime.view.memory.pins.has(entryId)).toBe(true);
    expect(runtime.view.memory.markById(mark.id)).toBeUndefined();
    expect(answer.text).toContain(`${mark.id}: ${covered.length}`);
  });

  it("a collapsed fold's id is refused with the true reason and the call that helps; an expanded one pins its entries", async () => {
    // A fold with raw entries at its own level, so expanding it shows some.
    const fold = runtime.view.visibleFolds.find((placed) => placed.record.parts.some((part) => part.kind === 'entry'))!
      .record.id;
    const error = await refused({ action: 'pin', ids: [fold] });
    expect(error.code).toBe('ACTION.NOT_EXPANDED');
    expect(error.message).toContain(`${fold} is a committed fold and its entries are folded out of the window`);
    expect(error.message).toContain(`{"action":"expand","id":"${fold}"}`);
    expect(error.message).not.toMatch(/is not a fold, mark or entry/);
    await runtime.act({ action: 'expand', id: fold });
    const placed = runtime.view.lattice.placement(fold)!;
    const shownRaw = runtime.view.index.entries
      .slice(placed.first, placed.last + 1)
      .filter((_entry, offset) => !runtime.view.lattice.isHidden(placed.first + offset));
    expect(shownRaw.length).toBeGreaterThan(0);
    const answer = await runtime.act({ action: 'pin', ids: [fold] });
    for (const entry of shownRaw) expect(runtime.view.memory.pins.has(entry.id)).toBe(true);
    expect(runtime.view.memory.pins.size).toBe(shownRaw.length);
    expect(answer.text).toContain(`${fold}: ${shownRaw.length}`);
  });

  it('an id of nothing says what pin takes and where to find it', async () => {
    const error = await refused({ action: 'pin', ids: ['fold_000000000000000000000000'] });
    expect(error.code).toBe('ACTION.UNKNOWN_ID');
    expect(error.message).toMatch(
      /is not an entry, pending mark or fold of this session; status with detail "tree" lists the raw entry ids you can pin/,
    );
  });
});
