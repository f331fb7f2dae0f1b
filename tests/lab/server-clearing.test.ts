import type { Context, Message } from '@mariozechner/pi-ai';
import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_CLEARING_DEFAULTS,
  applyServerClearing,
  CLEARED_PLACEHOLDER,
  clearingRulesFor,
} from '../../lab/ai-sdk/server-clearing.ts';

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

function call(id: string, name: string): Message {
  return {
    role: 'assistant',
    content: [{ type: 'toolCall', id, name, arguments: { path: id } }],
    api: 'lab-simulated',
    provider: 'lab',
    model: 'lab-model',
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason: 'toolUse',
    timestamp: 0,
  };
}

function result(id: string, name: string, text: string): Message {
  return {
    role: 'toolResult',
    toolCallId: id,
    toolName: name,
    content: [{ type: 'text', text }],
    isError: false,
    timestamp: 0,
  };
}

/** Six tool uses of 51 words each, the fourth from `grep`. */
function session(): Context {
  const messages: Message[] = [{ role: 'user', content: 'start', timestamp: 0 }];
  for (let index = 0; index < 6; index += 1) {
    const name = index === 3 ? 'grep' : 'read';
    messages.push(call(`c${index}`, name), result(`c${index}`, name, `result ${index} ${'word '.repeat(49)}`));
  }
  return { systemPrompt: 'system', messages, tools: [] };
}

const resultTexts = (context: Context): string[] =>
  context.messages.flatMap((message) =>
    message.role === 'toolResult'
      ? [message.content.map((part) => (part.type === 'text' ? part.text : '')).join('')]
      : [],
  );

describe("the AI SDK lab's server-side clearing (Anthropic clear_tool_uses_20250919)", () => {
  it('leaves a prompt at or below the trigger untouched', () => {
    const context = session();
    const outcome = applyServerClearing(context, 1000, { triggerTokens: 1000, keepToolUses: 3 }, words);
    expect(outcome.context).toBe(context);
    expect(outcome.clearedToolUses).toBe(0);
  });

  it('above the trigger clears every result but the last `keep`, oldest first, and keeps the calls', () => {
    const outcome = applyServerClearing(session(), 1001, { triggerTokens: 1000, keepToolUses: 3 }, words);
    const texts = resultTexts(outcome.context);
    expect(texts.slice(0, 3)).toEqual([CLEARED_PLACEHOLDER, CLEARED_PLACEHOLDER, CLEARED_PLACEHOLDER]);
    expect(texts.slice(3).every((text) => text.startsWith('result '))).toBe(true);
    expect(outcome.clearedToolUses).toBe(3);
    expect(outcome.clearedTokens).toBe(3 * (51 - 1));
    const calls = outcome.context.messages.filter((message) => message.role === 'assistant');
    expect(calls).toHaveLength(6);
  });

  it('never clears an excluded tool, and an edit below `clearAtLeast` is not applied at all', () => {
    const excluded = applyServerClearing(
      session(),
      2000,
      { triggerTokens: 1000, keepToolUses: 1, excludeTools: ['grep'] },
      words,
    );
    expect(resultTexts(excluded.context)[3]).toMatch(/^result 3/);
    expect(excluded.clearedToolUses).toBe(4);
    const context = session();
    const tooLittle = applyServerClearing(
      context,
      2000,
      { triggerTokens: 1000, keepToolUses: 3, clearAtLeastTokens: 3 * 50 + 1 },
      words,
    );
    expect(tooLittle.context).toBe(context);
    expect(tooLittle.clearedToolUses).toBe(0);
  });

  it('keeps the documented trigger for a Claude-sized window and scales it down for a smaller one', () => {
    expect(clearingRulesFor(ANTHROPIC_CLEARING_DEFAULTS, 272_000).triggerTokens).toBe(100_000);
    expect(clearingRulesFor(ANTHROPIC_CLEARING_DEFAULTS, 30_000).triggerTokens).toBe(15_000);
  });
});
