import { generateText, type ModelMessage, stepCountIs, ToolLoopAgent } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { canonicalBytes } from '../../adapters/hosts/vercel-ai/canonical-message.ts';
import { createFolding, foldingAgentSettings } from '../../adapters/hosts/vercel-ai/index.ts';
import { MessageEntryMapper, requestUsage } from '../../adapters/hosts/vercel-ai/internal.ts';
import type { ModelPrompt } from '../../adapters/hosts/vercel-ai/usage-middleware.ts';
import { FoldError } from '../../core/fold-error.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import { fileText, ScriptedModel } from '../../testing/vercel-ai/scripted-model.ts';
import { pairingViolations } from './support/prompt-checks.ts';

/** A history with a two-call batch whose results share one tool message. */
function history(): ModelMessage[] {
  return [
    { role: 'system', content: 'Be brief.' },
    { role: 'user', content: 'Read two files.' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading both.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'a.ts' } },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'read_file', input: { path: 'b.ts' } },
      ],
    },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'c1',
          toolName: 'read_file',
          output: { type: 'text', value: fileText('a.ts') },
        },
        {
          type: 'tool-result',
          toolCallId: 'c2',
          toolName: 'read_file',
          output: { type: 'text', value: fileText('b.ts') },
        },
      ],
    },
    { role: 'assistant', content: 'Both read.' },
    { role: 'user', content: 'Now summarise.' },
  ];
}

describe('stable entries for AI SDK messages', () => {
  it('gives one entry per tool result, ids that survive a JSON round trip, and ids chained to what came before', () => {
    const messages = history();
    const entries = new MessageEntryMapper().toEntries(messages);
    expect(entries.map((entry) => entry.role)).toEqual([
      'user',
      'user',
      'assistant',
      'toolResult',
      'toolResult',
      'assistant',
      'user',
    ]);
    expect(entries[0]!.protected).toBe(true);
    expect(entries[2]!.toolCalls?.map((call) => call.id)).toEqual(['c1', 'c2']);
    expect(entries.slice(3, 5).map((entry) => entry.toolCallId)).toEqual(['c1', 'c2']);
    expect(new Set(entries.map((entry) => entry.id)).size).toBe(entries.length);

    const reloaded = new MessageEntryMapper().toEntries(JSON.parse(JSON.stringify(messages)) as ModelMessage[]);
    expect(reloaded.map((entry) => entry.id)).toEqual(entries.map((entry) => entry.id));

    // Same words at another place, or after an edited message, get other ids.
    const edited = history();
    edited[1] = { role: 'user', content: 'Read two files, please.' };
    const editedIds = new MessageEntryMapper().toEntries(edited).map((entry) => entry.id);
    expect(editedIds[0]).toBe(entries[0]!.id);
    for (let position = 1; position < entries.length; position += 1)
      expect(editedIds[position]).not.toBe(entries[position]!.id);
  });

  it('derives ids from content and chain alone (stored sessions keep their ids across processes and versions)', () => {
    const messages = history();
    const entries = new MessageEntryMapper().toEntries(messages);
    let previous = 'start';
    for (const entry of entries) {
      expect(entry.sha256).toBe(sha256Hex(entry.bytes));
      expect(entry.id).toBe(`${entry.id.split('_')[0]}_${sha256Hex(`${previous}|${entry.sha256}`).slice(0, 32)}`);
      previous = entry.id;
    }
    expect(entries[1]!.bytes).toBe(canonicalBytes(messages[1]));
  });

  it('reuses the entries of an unchanged prefix of message objects (a step costs what was appended)', () => {
    const mapper = new MessageEntryMapper();
    const messages = history();
    const before = mapper.toEntries(messages.slice(0, 4));
    const after = mapper.toEntries(messages);
    for (let position = 0; position < before.length; position += 1) expect(after[position]).toBe(before[position]);
  });

  it('projects a folded two-result batch as one tool message of two stubs, each answering its own call', async () => {
    const folding = await createFolding({
      store: 'memory',
      sessionId: 'mapping',
      settings: {
        providerInputBudget: 100_000,
        thresholds: { maxTarget: 0.8, minTarget: 0.4, consolidateAfter: 10, minFoldChars: 1000 },
      },
    });
    const messages = history();
    const raw = await folding.prepareStep({ messages });
    expect(raw.messages).toEqual(messages);
    expect(raw.messages[3]).toBe(messages[3]);
    folding.runtime.requestCommit('user-fold');
    const folded = (await folding.prepareStep({ messages })).messages;
    const toolMessage = folded.find((message) => message.role === 'tool');
    expect(
      toolMessage?.content.map((part) => (part.type === 'tool-result' ? [part.toolCallId, part.output.type] : [])),
    ).toEqual([
      ['c1', 'text'],
      ['c2', 'text'],
    ]);
    expect(JSON.stringify(toolMessage)).not.toContain(fileText('a.ts').slice(0, 200));
    expect(pairingViolations(folded as unknown as ModelPrompt)).toEqual([]);
    expect(folded[0]).toBe(messages[0]);
    await folding.dispose();
  });
});

describe('composition and settings', () => {
  it('runs a user prepareStep first, folds the history it returns, and keeps its other settings', async () => {
    const folding = await createFolding({
      store: 'memory',
      sessionId: 'compose',
      settings: { providerInputBudget: 50_000 },
    });
    const seen: number[] = [];
    const model = new ScriptedModel(({ call }) =>
      call < 2 ? { toolCalls: [{ toolName: 'fold_context', input: { action: 'status' } }] } : { text: 'ok' },
    );
    await generateText({
      model: folding.wrapModel(model.model),
      tools: folding.tools,
      prompt: 'hello',
      stopWhen: stepCountIs(5),
      prepareStep: folding.composePrepareStep(({ messages }) => {
        seen.push(messages.length);
        return { messages: [{ role: 'user', content: 'injected first' }, ...messages], toolChoice: 'auto' };
      }),
    });
    expect(seen).toEqual([1, 3, 5]);
    for (const call of model.calls)
      expect(call.prompt[0]).toEqual({ role: 'user', content: [{ type: 'text', text: 'injected first' }] });
    expect(folding.runtime.view.ledger).toHaveLength(3);
    await folding.dispose();
  });

  it('refuses what it cannot wrap, naming the problem', async () => {
    await expect(createFolding({ store: 'memory', sessionId: 'no-budget' })).rejects.toThrow(
      /providerInputBudget or contextWindow/,
    );
    const folding = await createFolding({ store: 'memory', sessionId: 'agent', contextWindow: 200_000 });
    expect(() => foldingAgentSettings(folding, { model: 'openai/gpt-5' })).toThrow(FoldError);
    expect(() => foldingAgentSettings(folding, { model: new MockLanguageModelV3(), tools: folding.tools })).toThrow(
      /already has a tool named fold_context/,
    );
    expect(new ToolLoopAgent(foldingAgentSettings(folding, { model: new MockLanguageModelV3() })).tools).toHaveProperty(
      'fold_context',
    );
    await folding.dispose();
  });

  it('refuses an over-budget request before it is sent, out of band (I6)', async () => {
    const folding = await createFolding({
      store: 'memory',
      sessionId: 'over-budget',
      settings: { providerInputBudget: 1000 },
    });
    const model = new ScriptedModel(() => ({ text: 'never' }));
    const huge = 'x'.repeat(20_000);
    await expect(
      generateText({ model: folding.wrapModel(model.model), prepareStep: folding.prepareStep, prompt: huge }),
    ).rejects.toMatchObject({ code: 'BUDGET.EXCEEDED' });
    expect(model.calls).toHaveLength(0);
    await folding.dispose();
  });

  it('reads provider usage as the whole prompt: input + cache read + cache write = total', () => {
    expect(
      requestUsage({
        inputTokens: { total: 1000, noCache: 100, cacheRead: 800, cacheWrite: 100 },
        outputTokens: { total: 20, text: 20, reasoning: 0 },
      }),
    ).toEqual({ input: 100, cacheRead: 800, cacheWrite: 100, output: 20 });
    expect(
      requestUsage({
        inputTokens: { total: undefined, noCache: undefined, cacheRead: undefined, cacheWrite: undefined },
        outputTokens: { total: 5, text: 5, reasoning: 0 },
      }),
    ).toBeUndefined();
  });
});
