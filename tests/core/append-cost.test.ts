import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { DEFAULT_PRICE_LIST } from '../../core/pricing/price-lists.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { MAX_PENDING_MARKS } from '../../core/state/engine-memory.ts';
import type { TranscriptIndex } from '../../core/transcript/transcript-index.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';
import type { EngineState } from '../../ports/fold-records.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import {
  assistantEntry,
  seededRandom,
  sourceLikeText,
  toolResultEntry,
  userEntry,
} from '../../testing/synthetic-session.ts';

/**
 * A pure append must cost what it adds, not the session (bench:engine's append scaling).
 * These tests count work a request does (marks looked up, state written) instead of timing it.
 */

/** A memory store that counts its state writes. */
class CountingStore extends MemoryFoldStore {
  stateWrites = 0;

  override async saveState(sessionId: string, state: EngineState): Promise<void> {
    this.stateWrites += 1;
    return super.saveState(sessionId, state);
  }
}

async function openBand(
  priceList: PriceList,
  settings: { rawFloorTokens?: number } = {},
): Promise<{ runtime: FoldRuntime; store: CountingStore }> {
  const store = new CountingStore();
  const runtime = await FoldRuntime.open({
    sessionId: 'append-cost',
    settings: resolveSettings({ providerInputBudget: 50_000_000, scheduling: 'band', ...settings }),
    foldStore: store,
    costModel: createCharsCostModel({ priceList }),
  });
  return { runtime, store };
}

/** One read step whose result is `resultChars` long. */
function readStep(random: () => number, step: number, resultChars: number): TranscriptEntry[] {
  const call = { id: `c${step}`, name: 'read', arguments: { path: `src/f${step}.c` } };
  return [
    assistantEntry(`a${step}`, `step ${step}`, [call]),
    toolResultEntry(`r${step}`, call.id, 'read', sourceLikeText(random, resultChars, `f${step}`)),
  ];
}

/** Count calls of the index's `positionOf` (how the engine places a mark or a hold on the branch). */
function countPositionLookups(runtime: FoldRuntime): { readonly count: number } {
  const index = runtime.view.index as TranscriptIndex;
  const original = index.positionOf.bind(index);
  const counter = { count: 0 };
  index.positionOf = (entryId: string) => {
    counter.count += 1;
    return original(entryId);
  };
  return counter;
}

describe('a pure append costs what it adds (docs/behaviour.md B3.2, B3.6)', () => {
  it('under the band trigger, a request places none of the standing marks', async () => {
    // No long-context line, so only the band's top (80 % of 50M tokens) could trigger a commit.
    const { runtime } = await openBand({ ...DEFAULT_PRICE_LIST, longContext: undefined });
    const random = seededRandom(4);
    const entries: TranscriptEntry[] = [userEntry('u0', 'go')];
    // Results over minFoldChars: each closed batch becomes a tool mark, until the mark cap stops the frontier cutting.
    for (let step = 1; runtime.view.memory.marks.length < MAX_PENDING_MARKS; step += 1) {
      entries.push(...readStep(random, step, 8_500));
      await runtime.project(entries);
      expect(step).toBeLessThan(MAX_PENDING_MARKS + 20);
    }
    const lookups = countPositionLookups(runtime);
    for (let request = 0; request < 5; request += 1) {
      entries.push(userEntry(`more${request}`, `follow-up ${request}`));
      const result = await runtime.project(entries);
      expect(result.ledger.causes).toEqual([]);
      expect(result.ledger.foldsLanded).toBe(0);
    }
    expect(runtime.view.memory.marks.length).toBe(MAX_PENDING_MARKS);
    // Placing the marks would look up two entry ids for each of 256 marks on every request.
    expect(lookups.count).toBe(0);
  });

  it('over the long-context line with nothing the band could free, requests write no state', async () => {
    // A line at 2,000 tokens is crossed at once; the band's aim (40 % of 50M tokens) is far above the window,
    // so the band asks to free nothing: no commit is planned and no state is written for it. The floor is off
    // so the tool marks stand outside it (a commit could land them, were one planned).
    const { runtime, store } = await openBand(
      { ...DEFAULT_PRICE_LIST, longContext: { aboveTokens: 2_000, rates: DEFAULT_PRICE_LIST.base } },
      { rawFloorTokens: 0 },
    );
    const random = seededRandom(5);
    const entries: TranscriptEntry[] = [userEntry('u0', 'go')];
    for (let step = 1; step <= 12; step += 1) {
      entries.push(...readStep(random, step, 8_500));
      await runtime.project(entries);
    }
    expect(runtime.view.ledger.at(-1)!.estimatedTokens).toBeGreaterThan(2_000);
    expect(runtime.view.memory.marks.length).toBeGreaterThan(5);
    let quietRequests = 0;
    for (let request = 0; request < 8; request += 1) {
      const marksBefore = runtime.view.memory.marks.length;
      const writesBefore = store.stateWrites;
      entries.push(userEntry(`more${request}`, `follow-up ${request}`));
      const result = await runtime.project(entries);
      expect(result.ledger.foldsLanded).toBe(0);
      if (runtime.view.memory.marks.length !== marksBefore) continue;
      quietRequests += 1;
      expect(store.stateWrites).toBe(writesBefore);
    }
    expect(quietRequests).toBeGreaterThan(4);
  });
});
