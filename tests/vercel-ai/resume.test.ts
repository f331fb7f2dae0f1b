import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { createFolding } from '../../adapters/hosts/vercel-ai/index.ts';
import { readLoop } from '../../testing/vercel-ai/scripted-model.ts';
import { extendsPrompt, pairingViolations } from './support/prompt-checks.ts';
import { runLoop } from './support/run-loop.ts';

const settings = { providerInputBudget: 40_000 };

describe('resuming an AI SDK conversation from stored messages', () => {
  it('continues with the same folds from the store, not a fresh start', async () => {
    const store = new MemoryFoldStore();
    const first = await runLoop({
      kind: 'generateText',
      script: readLoop(30),
      maxSteps: 40,
      folding: { sessionId: 'resumed', settings, store },
    });
    const standing = [...first.folding.runtime.view.lattice.allRecords()].map((record) => record.id).sort();
    expect(standing.length).toBeGreaterThan(3);
    const epoch = first.folding.runtime.view.memory.epoch;
    await first.folding.dispose();

    // What an application would store and load: plain JSON of the conversation so far.
    const stored = JSON.parse(
      JSON.stringify([{ role: 'user', content: 'Audit the repository.' }, ...first.messages]),
    ) as ModelMessage[];
    const history: ModelMessage[] = [...stored, { role: 'user', content: 'Continue with ten more modules.' }];
    const second = await runLoop({
      kind: 'generateText',
      script: readLoop(10),
      maxSteps: 15,
      folding: { sessionId: 'resumed', settings, store },
      history,
    });
    const runtime = second.folding.runtime;

    // The stored ids still name the same messages: every earlier fold is found and kept.
    expect(
      [...runtime.view.lattice.allRecords()]
        .map((record) => record.id)
        .filter((id) => standing.includes(id))
        .sort(),
    ).toEqual(standing);
    expect(runtime.view.ledger[0]!.foldsLanded).toBe(0);
    expect(runtime.view.memory.epoch).toBeGreaterThanOrEqual(epoch);
    // The first prompt of the resumed call extends the last prompt of the first call byte for byte.
    const lastBefore = first.model.calls[first.model.calls.length - 1]!.prompt;
    const firstAfter = second.model.calls[0]!.prompt;
    expect(extendsPrompt(lastBefore, firstAfter)).toBe(true);
    for (const call of second.model.calls) expect(pairingViolations(call.prompt)).toEqual([]);
    await second.folding.dispose();
  }, 60_000);

  it('notices another conversation under a stored session id in a new call: a coded warning, and the stored folds stay', async () => {
    const store = new MemoryFoldStore();
    const first = await runLoop({
      kind: 'generateText',
      script: readLoop(30),
      maxSteps: 40,
      folding: { sessionId: 'reused', settings, store },
    });
    const standing = [...first.folding.runtime.view.lattice.allRecords()].map((record) => record.id).sort();
    expect(standing.length).toBeGreaterThan(3);
    await first.folding.dispose();

    const warnings: string[] = [];
    const history: ModelMessage[] = [{ role: 'user', content: 'A different task: summarise the changelog.' }];
    const second = await runLoop({
      kind: 'generateText',
      script: readLoop(3),
      maxSteps: 5,
      folding: { sessionId: 'reused', settings, store, onWarning: (warning) => warnings.push(warning) },
      history,
    });
    expect(warnings.filter((warning) => warning.includes('[TRANSCRIPT.SESSION_MISMATCH]'))).toHaveLength(1);
    expect(second.folding.runtime.view.ledger[0]!.causes).toContain('transcript-changed');
    await second.folding.dispose();
    // Nothing of the first conversation was lost: its records read back and the state still lists them.
    for (const id of standing) expect((await store.getFold('reused', id))?.id).toBe(id);
    expect([...(await store.loadState('reused'))!.foldIds]).toEqual(expect.arrayContaining(standing));
  }, 60_000);

  it('reads the folds from the store under the same session id only (the control)', async () => {
    const store = new MemoryFoldStore();
    const first = await runLoop({
      kind: 'generateText',
      script: readLoop(30),
      maxSteps: 40,
      folding: { sessionId: 'original', settings, store },
    });
    const standing = first.folding.runtime.view.lattice.size;
    expect(standing).toBeGreaterThan(3);
    await first.folding.dispose();
    const same = await createFolding({ sessionId: 'original', settings, store });
    const other = await createFolding({ sessionId: 'another', settings, store });
    expect(same.runtime.view.lattice.size).toBe(standing);
    expect(other.runtime.view.lattice.size).toBe(0);
    await same.dispose();
    await other.dispose();
  }, 60_000);

  it('adopts a long history that never had folding: the first request already fits the budget', async () => {
    const store = new MemoryFoldStore();
    const first = await runLoop({
      kind: 'generateText',
      script: readLoop(30),
      maxSteps: 40,
      folding: { sessionId: 'unfolded-source', settings, store },
    });
    await first.folding.dispose();
    const history = JSON.parse(
      JSON.stringify([{ role: 'user', content: 'Audit the repository.' }, ...first.messages]),
    ) as ModelMessage[];
    const adopted = await runLoop({
      kind: 'generateText',
      script: readLoop(2),
      maxSteps: 5,
      folding: { sessionId: 'adopted', settings, store },
      history,
    });
    expect(adopted.folding.runtime.view.ledger[0]!.foldsLanded).toBeGreaterThan(0);
    for (const call of adopted.model.calls) {
      expect(call.tokens).toBeLessThanOrEqual(settings.providerInputBudget);
      expect(pairingViolations(call.prompt)).toEqual([]);
    }
    await adopted.folding.dispose();
  }, 60_000);
});
