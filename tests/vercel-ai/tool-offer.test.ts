import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { createFolding } from '../../adapters/hosts/vercel-ai/index.ts';
import { readLoop } from '../../testing/vercel-ai/scripted-model.ts';
import { runLoop } from './support/run-loop.ts';

const TOOL = 'fold_context';
const settings = { providerInputBudget: 40_000, scheduling: 'band', rawFloorTokens: 0 } as const;

describe("AI SDK: toolOffer 'when-needed' offers the fold tool from the call whose window first needs it", () => {
  it('a generateText loop: no fold tool before the first commit, the tool on every call from it on; the default offers it on every call', async () => {
    const run = await runLoop({
      kind: 'generateText',
      script: readLoop(30),
      maxSteps: 40,
      folding: { sessionId: 'offer-when-needed', settings, toolOffer: 'when-needed' },
    });
    expect(run.errors).toEqual([]);
    const rows = run.folding.runtime.view.ledger;
    const firstCommit = rows.findIndex((row) => row.foldsLanded > 0);
    expect(firstCommit).toBeGreaterThan(3);
    const offered = run.model.calls.map((call) => call.toolNames.includes(TOOL));
    // A notice asking for briefs comes before the commit (docs/behaviour.md B5.3): it does not bring the tool in.
    const noticed = run.prompts.findIndex((record) =>
      JSON.stringify(record.prompt).includes('spans are cut and will fold at the next commit'),
    );
    expect(noticed).toBeGreaterThan(0);
    expect(noticed).toBeLessThan(firstCommit);
    expect(offered.slice(0, firstCommit)).toEqual(new Array(firstCommit).fill(false));
    expect(offered.slice(firstCommit).every(Boolean)).toBe(true);
    // The host's own tool is offered throughout.
    for (const call of run.model.calls) expect(call.toolNames).toContain('read_file');
    // Before the first commit each prompt is smaller than the same prompt with the tool: the tokens the setting saves.
    const always = await runLoop({
      kind: 'generateText',
      script: readLoop(30),
      maxSteps: 40,
      folding: { sessionId: 'offer-always', settings },
    });
    expect(always.model.calls.every((call) => call.toolNames.includes(TOOL))).toBe(true);
    expect(always.folding.runtime.view.ledger.findIndex((row) => row.foldsLanded > 0)).toBe(firstCommit);
  }, 60_000);

  it('a conversation restored with folds offers the tool on its first call', async () => {
    const store = new MemoryFoldStore();
    const first = await runLoop({
      kind: 'generateText',
      script: readLoop(30),
      maxSteps: 40,
      folding: { sessionId: 'offer-restored', settings, store, toolOffer: 'when-needed' },
    });
    expect(first.folding.runtime.view.lattice.size).toBeGreaterThan(0);
    await first.folding.dispose();
    const history = [
      ...(JSON.parse(
        JSON.stringify([{ role: 'user', content: 'Audit the repository.' }, ...first.messages]),
      ) as ModelMessage[]),
      { role: 'user', content: 'Go on.' } as ModelMessage,
    ];
    const second = await runLoop({
      kind: 'generateText',
      script: readLoop(3),
      maxSteps: 5,
      folding: { sessionId: 'offer-restored', settings, store, toolOffer: 'when-needed' },
      history,
    });
    expect(second.model.calls[0]!.toolNames).toContain(TOOL);
  }, 60_000);

  it('refuses an unknown toolOffer by name before anything is built', async () => {
    await expect(
      createFolding({ sessionId: 'offer-bad', store: 'memory', contextWindow: 100_000, toolOffer: 'later' as never }),
    ).rejects.toMatchObject({
      code: 'SETTINGS.INVALID',
      details: { option: 'toolOffer' },
      message: expect.stringMatching(/toolOffer must be one of "always", "when-needed", got the string "later"/),
    });
  });
});
