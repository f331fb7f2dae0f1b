import type { ModelMessage } from 'ai';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { MessageEntryMapper } from '../../adapters/hosts/vercel-ai/message-entries.ts';
import { MessageHistorySource } from '../../adapters/hosts/vercel-ai/message-history-source.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import type { TranscriptIndex } from '../../core/transcript/transcript-index.ts';
import { transcriptSourceConformance } from '../../testing/transcript-source-conformance.ts';
import { readLoop } from '../../testing/vercel-ai/scripted-model.ts';
import { runLoop } from './support/run-loop.ts';

/**
 * The AI SDK hands the whole history to every step. Its source hands the engine only what
 * was appended when the history grew (the chained ids vouch for the prefix), so the engine's
 * identity check costs what a step adds, not the conversation; an edited history is still a
 * whole branch the engine checks. Work is counted (positions compared), not timed.
 */

function compared(runtime: FoldRuntime): number {
  return (runtime.view.index as TranscriptIndex).comparedPositions;
}

/** A read step: the assistant's call and the tool's answer. */
function readStep(step: number): ModelMessage[] {
  const toolCallId = `call-${step}`;
  return [
    {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId, toolName: 'read_file', input: { path: `src/module-${step}.ts` } }],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId,
          toolName: 'read_file',
          output: { type: 'text', value: `export const module${step} = ${'x'.repeat(400)};` },
        },
      ],
    },
  ];
}

async function openRuntime(sessionId: string): Promise<FoldRuntime> {
  return FoldRuntime.open({
    sessionId,
    settings: resolveSettings({ providerInputBudget: 1_000_000 }),
    foldStore: new MemoryFoldStore(),
    costModel: createCharsCostModel(),
  });
}

describe('the AI SDK source hands appended reads (issue 14: the identity check is incremental)', () => {
  it('a real tool loop: the engine compares no held position on any step, however long the history grows', async () => {
    const run = await runLoop({
      kind: 'generateText',
      script: readLoop(40),
      maxSteps: 45,
      folding: { sessionId: 'appended-loop', settings: { providerInputBudget: 40_000 }, store: new MemoryFoldStore() },
    });
    const runtime = run.folding.runtime;
    expect(runtime.view.index.length).toBeGreaterThan(80);
    expect(runtime.view.memory.counters.requests).toBeGreaterThan(40);
    expect(runtime.view.memory.counters.commits).toBeGreaterThan(0);
    // Handed the whole branch each step, the engine would have compared every held position: thousands here.
    expect(compared(runtime)).toBe(0);
    expect(runtime.view.ledger.filter((row) => row.causes.includes('transcript-changed'))).toEqual([]);
    await run.folding.dispose();
  }, 60_000);

  it('an edited early message is a whole branch the engine checks: transcript-changed, found at the edit', async () => {
    const mapper = new MessageEntryMapper();
    const source = new MessageHistorySource('appended-edit', mapper);
    const runtime = await openRuntime('appended-edit');
    const history: ModelMessage[] = [{ role: 'user', content: 'Read the modules.' }];
    for (let step = 1; step <= 30; step += 1) {
      history.push(...readStep(step));
      source.update([...history]);
      const row = (await runtime.project(source)).ledger;
      expect(row.causes).toEqual([]);
    }
    expect(compared(runtime)).toBe(0);
    const held = runtime.view.index.length;

    // The host rewrites the fifth message (a tool result) and goes on.
    const edited = history.map((message, position) =>
      position === 4
        ? {
            role: 'tool',
            content: [
              {
                type: 'tool-result',
                toolCallId: 'call-2',
                toolName: 'read_file',
                output: { type: 'text', value: 'redacted' },
              },
            ],
          }
        : message,
    ) as ModelMessage[];
    source.update([...edited, ...readStep(31)]);
    const row = (await runtime.project(source)).ledger;
    expect(row.causes).toContain('transcript-changed');
    // The whole branch was compared up to the first changed entry, and no further.
    expect(compared(runtime)).toBe(5);
    expect(runtime.view.index.length).toBe(held + 2);
    expect(runtime.view.index.entries[4]!.bytes).toContain('redacted');
  });

  it('a history cut back and grown again to the same length is not taken for an append', async () => {
    const source = new MessageHistorySource('appended-cut', new MessageEntryMapper());
    const runtime = await openRuntime('appended-cut');
    const history: ModelMessage[] = [
      { role: 'user', content: 'Read the modules.' },
      ...readStep(1),
      ...readStep(2),
      ...readStep(3),
    ];
    source.update(history);
    await runtime.project(source);
    // Same length, other last steps: the last id differs, so the engine is handed the whole branch.
    source.update([history[0]!, ...readStep(1), ...readStep(7), ...readStep(8)]);
    const row = (await runtime.project(source)).ledger;
    expect(row.causes).toContain('transcript-changed');
    expect(compared(runtime)).toBeGreaterThan(0);
  });
});

// The AI SDK's source meets the TranscriptSource contract, rewrites included.
transcriptSourceConformance(
  { test: (name, body) => it(name, body) },
  () => {
    const source = new MessageHistorySource('conformance-ai-sdk', new MessageEntryMapper());
    const history: ModelMessage[] = [{ role: 'user', content: 'Read the modules.' }];
    let step = 0;
    return {
      source,
      advance: () => {
        history.push(...readStep(++step));
        source.update([...history]);
      },
      rewrite: () => {
        history[0] = { role: 'user', content: 'Read the other modules.' };
        source.update([...history]);
      },
    };
  },
  { createFoldStore: () => new MemoryFoldStore(), label: 'MessageHistorySource' },
);
