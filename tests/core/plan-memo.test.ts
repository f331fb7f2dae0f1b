import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { planStandingMarks } from '../../core/commit/plan/plan-marks.ts';
import { planMemoCounters } from '../../core/commit/plan/plan-memo.ts';
import { displayedChars } from '../../core/commit/plan/planner.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { sha256HexOfLines } from '../../core/util/hashing.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import {
  assistantEntry,
  seededRandom,
  sourceLikeText,
  toolResultEntry,
  userEntry,
} from '../../testing/synthetic-session.ts';

/**
 * The cost scheduler asks the planner the same questions on every request: what the standing
 * folds show collapsed, and what a commit of every standing mark would free. These tests
 * count that work instead of timing it: it is done once per fold and per mark, not per request.
 */

/** A session with standing folds and marks still waiting to land (the band commits at 80 % of 60k). */
async function foldingSession(): Promise<{ runtime: FoldRuntime; entries: TranscriptEntry[] }> {
  const runtime = await FoldRuntime.open({
    sessionId: 'plan-memo',
    settings: resolveSettings({
      providerInputBudget: 60_000,
      scheduling: 'band',
      spill: { thresholdBytes: 262_144, keepBytes: 4_096 },
    }),
    foldStore: new MemoryFoldStore(),
    costModel: createCharsCostModel(),
  });
  const random = seededRandom(7);
  const entries: TranscriptEntry[] = [userEntry('u0', 'go')];
  for (let step = 1; step <= 120; step += 1) {
    const call = { id: `c${step}`, name: 'read', arguments: { path: `src/f${step}.c` } };
    entries.push(
      assistantEntry(`a${step}`, `step ${step}`, [call]),
      toolResultEntry(
        `r${step}`,
        call.id,
        'read',
        sourceLikeText(random, 1_500 + Math.floor(random() * 1_500), `f${step}`),
      ),
    );
    const result = await runtime.project(entries);
    runtime.recordUsage({ input: result.ledger.estimatedTokens, cacheRead: 0, cacheWrite: 0, output: 20 });
  }
  return { runtime, entries };
}

function planAll(runtime: FoldRuntime) {
  const { index, lattice, memory, settings } = runtime.view;
  return planStandingMarks(
    { index, lattice, memory, toolName: settings.toolName },
    { charsToFree: Number.POSITIVE_INFINITY },
  );
}

describe('planning a commit reuses what stands (bench:pi engine p50)', () => {
  it('planning the same marks twice builds each fold record once; a brief given in between rebuilds only that one', async () => {
    const { runtime } = await foldingSession();
    expect([...runtime.view.lattice.allRecords()].length).toBeGreaterThan(0);
    const first = planAll(runtime);
    expect(first.folds.length).toBeGreaterThan(1);
    const builtBefore = planMemoCounters.recordsBuilt;
    const second = planAll(runtime);
    expect(planMemoCounters.recordsBuilt).toBe(builtBefore);
    expect(second.folds.map((fold) => fold.record)).toEqual(first.folds.map((fold) => fold.record));
    second.folds.forEach((fold, position) => {
      expect(fold.record).toBe(first.folds[position]!.record);
    });
    expect(second.savedChars).toBe(first.savedChars);

    // A mark replaced by the agent's brief is another mark: its record is built again, with the brief.
    const briefed = first.folds.find((fold) => fold.mark.kind === 'chapter' && !fold.collapseOnly) ?? first.folds[0]!;
    await runtime.act({ action: 'brief', id: briefed.mark.id, text: 'the agent read the first files' });
    const third = planAll(runtime);
    const rebuilt = third.folds.find((fold) => fold.mark.id === briefed.mark.id)!;
    expect(rebuilt.record).not.toBe(briefed.record);
    expect(rebuilt.record.brief).toBe('the agent read the first files');
    expect(rebuilt.record.sourceSha256).toBe(briefed.record.sourceSha256);
    const untouched = third.folds.filter(
      (fold) =>
        fold.mark.id !== briefed.mark.id &&
        !fold.record.parts.some((part) => part.kind === 'fold' && part.foldId === briefed.mark.id),
    );
    for (const fold of untouched)
      expect(fold.record).toBe(first.folds.find((earlier) => earlier.mark.id === fold.mark.id)!.record);
  });

  it("planning hashes no fold source: a record's digest is computed when first read, once, and is its lines' digest", async () => {
    const { runtime } = await foldingSession();
    const { index } = runtime.view;
    const builtBefore = planMemoCounters.recordsBuilt;
    const hashedBefore = planMemoCounters.sourceDigests;
    const plan = planAll(runtime);
    expect(planMemoCounters.recordsBuilt).toBeGreaterThan(builtBefore);
    expect(planMemoCounters.sourceDigests).toBe(hashedBefore);
    // Measuring what the plan's folds show collapsed reads no digest either.
    expect(plan.savedChars).toBeGreaterThan(0);
    expect(planMemoCounters.sourceDigests).toBe(hashedBefore);
    const { record } = plan.folds.at(-1)!;
    const first = index.positionOf(record.firstEntryId)!;
    const last = index.positionOf(record.lastEntryId)!;
    const expected = sha256HexOfLines(index.entries.slice(first, last + 1).map((entry) => entry.bytes));
    expect(record.sourceSha256).toBe(expected);
    expect(planMemoCounters.sourceDigests).toBe(hashedBefore + 1);
    expect(record.sourceSha256).toBe(expected);
    expect(planMemoCounters.sourceDigests).toBe(hashedBefore + 1);
    // What a store writes carries the digest like any other member.
    expect((JSON.parse(JSON.stringify(record)) as { sourceSha256: string }).sourceSha256).toBe(expected);
  });

  it('measuring the window twice measures each standing fold once', async () => {
    const { runtime } = await foldingSession();
    const { index, lattice, settings } = runtime.view;
    const inputs = { index, toolName: settings.toolName };
    const whole = displayedChars(inputs, lattice, 0, index.length - 1);
    const measuredBefore = planMemoCounters.collapsedComputed;
    expect(displayedChars(inputs, lattice, 0, index.length - 1)).toBe(whole);
    expect(planMemoCounters.collapsedComputed).toBe(measuredBefore);
    // What the window shows is smaller than the raw branch by what the standing folds save.
    const raw = index.windowChars.reduce((sum, chars) => sum + chars, 0);
    expect(whole).toBeLessThan(raw);
  });
});
