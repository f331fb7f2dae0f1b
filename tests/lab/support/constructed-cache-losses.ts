import { readFileSync, writeFileSync } from 'node:fs';
import { retimedClaudeSession } from './retimed-claude-session.ts';

/** What the constructed recording's provider did at one response (counted by message id, from 0). */
export type ConstructedEvent =
  /** A pure append whose provider kept only `keptTokens` of its cache. */
  | { readonly kind: 'provider loss'; readonly response: number; readonly keptTokens: number }
  /** The recorder changed its own prompt: it shrank by `shrankBy` and read only `keptTokens`. */
  | {
      readonly kind: 'prompt change';
      readonly response: number;
      readonly shrankBy: number;
      readonly keptTokens: number;
    };

/** The constructed file, and the prompt each response sent as its usage says. */
export interface ConstructedRecording {
  readonly path: string;
  readonly prompts: readonly number[];
}

/**
 * A real Claude Code session (the first `lineCount` lines of a shared transcript, 10 s
 * between responses, so no idle gap) whose usage is rewritten into a provider that never
 * lost anything: every prompt at least the one before, each read from cache up to the
 * previous prompt. Then `events` put in exactly the losses and the recorder rewrites a test
 * asks for, and nothing else.
 */
export function constructedCacheLosses(lineCount: number, events: readonly ConstructedEvent[]): ConstructedRecording {
  const path = retimedClaudeSession({ lineCount, idleBefore: Number.MAX_SAFE_INTEGER, idleMinutes: 0 });
  const lines = readFileSync(path, 'utf8').split('\n');
  const order = new Map<string, number>();
  const recorded: number[] = [];
  for (const text of lines) {
    if (text.trim().length === 0) continue;
    const line = JSON.parse(text);
    const usage = line.message?.usage;
    if (line.type !== 'assistant' || usage === undefined || line.message?.model === '<synthetic>') continue;
    const id = line.message.id ?? line.uuid;
    if (!order.has(id)) {
      order.set(id, order.size);
      recorded.push(
        (usage.input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0),
      );
    }
  }
  const prompts: number[] = [];
  for (const [response, tokens] of recorded.entries()) {
    const change = events.find((event) => event.response === response && event.kind === 'prompt change');
    const previous = prompts.at(-1) ?? 0;
    prompts.push(change?.kind === 'prompt change' ? previous - change.shrankBy : Math.max(tokens, previous + 20));
  }
  const usageOf = (response: number) => {
    const prompt = prompts[response]!;
    const event = events.find((candidate) => candidate.response === response);
    const read = response === 0 ? 0 : (event?.keptTokens ?? prompts[response - 1]!);
    return { input: 10, read, written: prompt - read - 10 };
  };
  const out = lines.map((text) => {
    if (text.trim().length === 0) return text;
    const line = JSON.parse(text);
    const usage = line.message?.usage;
    const response = order.get(line.message?.id ?? line.uuid);
    if (line.type !== 'assistant' || usage === undefined || response === undefined) return text;
    const { input, read, written } = usageOf(response);
    usage.input_tokens = input;
    usage.cache_read_input_tokens = read;
    usage.cache_creation_input_tokens = written;
    usage.cache_creation = { ephemeral_5m_input_tokens: written, ephemeral_1h_input_tokens: 0 };
    return JSON.stringify(line);
  });
  writeFileSync(path, out.join('\n'));
  return { path, prompts };
}
