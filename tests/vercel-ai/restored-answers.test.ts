import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/storage-memory/memory-fold-store.ts';
import { createFolding } from '../../adapters/vercel-ai/index.ts';
import type { SearchHit } from '../../core/actions/search-action.ts';
import type { StatusReport } from '../../core/actions/status-action.ts';
import { readLoop } from '../../testing/vercel-ai/scripted-model.ts';
import { runLoop } from './support/run-loop.ts';

/**
 * A runtime reopened on a stored session (a new process) answers from the store at once:
 * before its first request `status` gives the budget the context window sets and counts the
 * folds the window will show, and `search` covers every stored fold.
 */
describe('a restored runtime before its first request', () => {
  it('answers status and search from the stored folds', async () => {
    const store = new MemoryFoldStore();
    const contextWindow = 44_000;
    const first = await runLoop({
      kind: 'generateText',
      script: readLoop(30),
      maxSteps: 40,
      folding: { sessionId: 'restored', contextWindow, store },
    });
    const before = first.folding.runtime;
    const shownBefore = before.view.visibleFolds.map((placed) => placed.record.id).sort();
    expect(shownBefore.length).toBeGreaterThan(3);
    const searchBefore = await before.act({ action: 'search', pattern: 'module_', limit: 50 });
    const hitsBefore = (searchBefore.data as { hits: SearchHit[] }).hits;
    expect(hitsBefore.length).toBeGreaterThan(3);
    await first.folding.dispose();

    const reopened = await createFolding({ sessionId: 'restored', contextWindow, store });
    const status = await reopened.runtime.act({ action: 'status' });
    const report = status.data as StatusReport;
    expect(report.budgetTokens).toBe(before.view.lastBudget);
    expect(status.text).not.toContain('budget unknown');
    expect(status.text).toContain(`visible folds ${shownBefore.length}:`);
    expect(report.visibleFolds.map((fold) => fold.id).sort()).toEqual(shownBefore);
    // No window has been sent yet, so occupancy is not claimed to be 0%.
    expect(report.occupancy).toBeNull();

    const search = await reopened.runtime.act({ action: 'search', pattern: 'module_', limit: 50 });
    const hits = (search.data as { hits: SearchHit[]; foldsScanned: number }).hits;
    expect(search.text).not.toContain('no matches');
    const key = (hit: SearchHit) => `${hit.foldId} ${hit.entryId} ${hit.entryOffset}`;
    expect(hits.map(key).sort()).toEqual(hitsBefore.map(key).sort());
    await reopened.dispose();
  }, 60_000);
});
