import type { Context, Message } from '@mariozechner/pi-ai';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { WireTokenizer, wireText } from '../../lab/provider/wire-tokens.ts';

function userMessage(text: string): Message {
  return { role: 'user', content: text, timestamp: 0 };
}

function context(messages: readonly Message[]): Context {
  return { systemPrompt: 'You are a test.', tools: [], messages: [...messages] };
}

describe('wire tokenizer', () => {
  it('holds only the messages of the last prompts, however long the session grew', () => {
    const tokenizer = new WireTokenizer();
    // A window that slides: each prompt keeps the 10 newest of a growing history.
    const history: Message[] = [];
    for (let turn = 0; turn < 600; turn += 1) {
      history.push(userMessage(`message ${turn}: ${'word '.repeat(turn % 7)}`));
      tokenizer.prompt(context(history.slice(-10)));
    }
    // 600 distinct messages went through; the last prompts held at most 10 new ones each.
    expect(tokenizer.cachedMessages).toBeLessThan(200);
  });

  it('a message that comes back after it was let go counts the same tokens as the first time', () => {
    const tokenizer = new WireTokenizer();
    const returning = userMessage('the fold came back, '.repeat(40));
    const first = tokenizer.prompt(context([returning])).at(-1)!;
    for (let turn = 0; turn < 300; turn += 1) tokenizer.prompt(context([userMessage(`other ${turn}`)]));
    const again = tokenizer.prompt(context([returning])).at(-1)!;
    expect(again.digest).toBe(first.digest);
    expect([...again.tokens]).toEqual([...first.tokens]);
    expect([...again.tokens]).toEqual(encode(wireText(returning)));
  });
});
