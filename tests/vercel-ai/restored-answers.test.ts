import { generateText, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { createFolding } from '../../adapters/hosts/vercel-ai/index.ts';
import type { SearchHit } from '../../core/actions/search-action.ts';
import type { StatusReport } from '../../core/actions/status-action.ts';
import { readFileTool, readLoop, ScriptedModel } from '../../testing/vercel-ai/scripted-model.ts';
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

/**
 * Closing a folding saves what its last steps left unsaved, and the reopened one says what
 * its budget rests on: the stored window, or the budget the settings give the stored model.
 */
describe('a reopened folding knows what the closed one knew', () => {
  it('its counters, exactly, and where its budget comes from', async () => {
    const store = new MemoryFoldStore();
    const contextWindow = 44_000;
    const first = await runLoop({
      kind: 'ToolLoopAgent.stream',
      script: readLoop(24),
      maxSteps: 30,
      folding: { sessionId: 'counters-kept', contextWindow, store },
    });
    // A second turn: its one request is a pure append that the provider billed as a cache miss.
    const reply = new ScriptedModel(() => ({ text: 'You are welcome.' }));
    await generateText({
      model: first.folding.wrapModel(reply.model),
      messages: [
        { role: 'user', content: 'Audit the repository.' },
        ...first.messages,
        { role: 'user', content: 'Thanks.' },
      ],
      tools: { read_file: readFileTool, ...first.folding.tools },
      prepareStep: first.folding.prepareStep,
      stopWhen: stepCountIs(3),
    });
    const counters = { ...first.folding.runtime.view.memory.counters };
    expect(counters.requests).toBe(first.prompts.length);
    expect(counters.providerCacheMisses).toBeGreaterThan(0);
    await first.folding.dispose();

    const reopened = await createFolding({ sessionId: 'counters-kept', contextWindow, store });
    const status = await reopened.runtime.act({ action: 'status' });
    expect(reopened.runtime.view.memory.counters).toEqual(counters);
    expect(status.text).toMatch(/^budget 39600 tokens \(from the last request's context window\) · occupancy unknown/);
    expect(status.text).toContain(`requests ${counters.requests} · pure appends ${counters.pureAppends}`);
    await reopened.dispose();
  }, 60_000);

  it('a budget keyed by model is found for the stored model before the first step', async () => {
    const store = new MemoryFoldStore();
    const settings = { providerInputBudget: { large: 80_000, small: 30_000 } };
    const folding = await createFolding({ sessionId: 'keyed', settings, store, onWarning: () => undefined });
    const small = new ScriptedModel(readLoop(8), { modelId: 'small' });
    await generateText({
      model: folding.wrapModel(small.model),
      prompt: 'Audit the repository.',
      tools: { read_file: readFileTool, ...folding.tools },
      prepareStep: folding.prepareStep,
      stopWhen: stepCountIs(10),
    });
    expect(folding.runtime.view.ledger.at(-1)!.budgetTokens).toBe(30_000);
    await folding.dispose();

    // The next process knows no model until its first step: the stored one picks the budget.
    const reopened = await createFolding({ sessionId: 'keyed', settings, store });
    const report = (await reopened.runtime.act({ action: 'status' })).data as StatusReport;
    expect(report.budgetTokens).toBe(30_000);
    expect(report.budgetSource).toBe('settings');
    await reopened.dispose();
  }, 60_000);
});
