import { createHash } from 'node:crypto';
import type { Context, Message } from '@mariozechner/pi-ai';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';
import type { PromptMessage } from './prefix-cache-simulator.ts';
import { TOKENIZER_PACKAGE, TOKENIZER_VERSION } from './tokenizer-package.ts';

/** The tokenizer every lab figure is counted with. */
export const LAB_TOKENIZER = `o200k_base (${TOKENIZER_PACKAGE} ${TOKENIZER_VERSION})`;

/**
 * What a provider receives of one message: its role and content, without Pi's bookkeeping
 * (timestamps, usage, model names), which never reach a model's wire.
 */
export function wireText(message: Message): string {
  switch (message.role) {
    case 'user':
      return JSON.stringify({ role: 'user', content: message.content });
    case 'assistant':
      return JSON.stringify({ role: 'assistant', content: message.content });
    case 'toolResult':
      return JSON.stringify({
        role: 'tool',
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        isError: message.isError,
        content: message.content,
      });
  }
}

/**
 * A message tokenized this many prompts ago and not sent since is let go. A prompt resends
 * most of the previous one, so only what left the window goes; a message that comes back
 * later (an expanded fold) is tokenized again, to the same tokens.
 */
const KEEP_UNSENT_PROMPTS = 8;
/** How often (in prompts) the cache is swept of messages not sent for `KEEP_UNSENT_PROMPTS`. */
const SWEEP_EVERY_PROMPTS = 64;

interface CachedTokens {
  readonly tokens: Uint32Array;
  lastPrompt: number;
}

/**
 * Tokenizes prompts in wire order (system prompt, tool schemas, then each message) with
 * o200k_base. Each distinct message is tokenized once and cached by its digest, so a run
 * costs what it appended rather than the whole prompt on every request. The cache holds
 * only the messages of the last few prompts (a long session's history is not kept twice),
 * as 4-byte token ids.
 */
export class WireTokenizer {
  private readonly cache = new Map<string, CachedTokens>();
  private prompts = 0;

  /** @param stableSystemPrompt rewrites the system prompt before counting (the lab pins Pi's date and working-directory lines so figures do not drift by day or checkout). */
  constructor(private readonly stableSystemPrompt: (text: string) => string = pinVolatileLines) {}

  /** The prompt as the prefix cache sees it: one tokenized part per wire element. */
  prompt(context: Context): PromptMessage[] {
    this.prompts += 1;
    if (this.prompts % SWEEP_EVERY_PROMPTS === 0) this.sweep();
    const parts: PromptMessage[] = [
      this.part(`system:${this.stableSystemPrompt(context.systemPrompt ?? '')}`),
      this.part(`tools:${JSON.stringify(context.tools ?? [])}`),
    ];
    for (const message of context.messages) parts.push(this.part(wireText(message)));
    return parts;
  }

  /** Tokens of a free text (a scripted reply). Not cached: replies are seen once. */
  count(text: string): number {
    return text.length === 0 ? 0 : encode(text).length;
  }

  /** Messages held, tokenized (what a long run keeps in memory). */
  get cachedMessages(): number {
    return this.cache.size;
  }

  private part(text: string): PromptMessage {
    const digest = createHash('sha1').update(text).digest('hex');
    let cached = this.cache.get(digest);
    if (cached === undefined) {
      cached = { tokens: Uint32Array.from(encode(text)), lastPrompt: this.prompts };
      this.cache.set(digest, cached);
    } else cached.lastPrompt = this.prompts;
    return { digest, tokens: cached.tokens };
  }

  private sweep(): void {
    for (const [digest, cached] of this.cache)
      if (this.prompts - cached.lastPrompt > KEEP_UNSENT_PROMPTS) this.cache.delete(digest);
  }
}

/** Pi ends its system prompt with today's date and the working directory; the lab counts fixed ones. */
export function pinVolatileLines(systemPrompt: string): string {
  return systemPrompt
    .replace(/^Current date: .*$/m, 'Current date: 2026-01-01')
    .replace(/^Current working directory: .*$/m, 'Current working directory: /workspace');
}
