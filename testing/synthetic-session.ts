import { stableStringify } from '../core/util/hashing.ts';
import type { TranscriptEntry } from '../ports/transcript-source.port.ts';
import { seededRandom } from './seeded-random.ts';

export { seededRandom } from './seeded-random.ts';

const WORDS = [
  'const',
  'return',
  'buffer',
  'parse',
  'header',
  'socket',
  'retry',
  'handle',
  'stream',
  'config',
  'token',
  'cache',
  'length',
  'offset',
  'error',
  'status',
];

/** Source-code-like text of about `chars` chars. */
export function sourceLikeText(random: () => number, chars: number, label: string): string {
  const lines: string[] = [`// ${label}`];
  let size = lines[0]!.length;
  let lineNumber = 1;
  while (size < chars) {
    const words = 3 + Math.floor(random() * 9);
    const parts: string[] = [];
    for (let word = 0; word < words; word += 1) parts.push(WORDS[Math.floor(random() * WORDS.length)]!);
    const line = `${String(lineNumber).padStart(4, ' ')}  ${'  '.repeat(Math.floor(random() * 3))}${parts.join(' ')};`;
    lines.push(line);
    size += line.length + 1;
    lineNumber += 1;
  }
  return lines.join('\n');
}

export function userEntry(id: string, text: string): TranscriptEntry {
  return { id, role: 'user', text, bytes: stableStringify({ role: 'user', content: [{ type: 'text', text }] }) };
}

export function assistantEntry(
  id: string,
  text: string,
  calls: readonly { id: string; name: string; arguments: Record<string, unknown> }[] = [],
): TranscriptEntry {
  const content: unknown[] = [];
  if (text.length > 0) content.push({ type: 'text', text });
  for (const call of calls) content.push({ type: 'toolCall', id: call.id, name: call.name, arguments: call.arguments });
  return {
    id,
    role: 'assistant',
    text,
    bytes: stableStringify({ role: 'assistant', content }),
    ...(calls.length > 0
      ? {
          toolCalls: calls.map((call) => ({
            id: call.id,
            name: call.name,
            argumentsJson: stableStringify(call.arguments),
          })),
        }
      : {}),
  };
}

export function toolResultEntry(id: string, toolCallId: string, toolName: string, text: string): TranscriptEntry {
  return {
    id,
    role: 'toolResult',
    text,
    toolCallId,
    toolName,
    bytes: stableStringify({
      role: 'toolResult',
      toolCallId,
      toolName,
      content: [{ type: 'text', text }],
      isError: false,
    }),
  };
}

export interface SyntheticSessionOptions {
  readonly seed: number;
  /** Smallest and largest tool result in chars. @default [5000, 40000] */
  readonly resultChars?: readonly [number, number];
  /** Share of steps that call two tools at once. @default 0.15 */
  readonly parallelShare?: number;
  /** Share of steps that are a plain assistant note. @default 0.1 */
  readonly noteShare?: number;
}

/**
 * A long, tool-heavy agent session grown one model step at a time: each `step()` appends
 * what one model reply and its tool results would add, like a real agent loop.
 */
export class SyntheticSession {
  readonly entries: TranscriptEntry[] = [];
  private readonly random: () => number;
  private sequence = 0;

  constructor(private readonly options: SyntheticSessionOptions) {
    this.random = seededRandom(options.seed);
    this.entries.push(
      userEntry(
        this.nextId('u'),
        'Audit the repository stage by stage: read every file each stage names and note what matters.',
      ),
    );
  }

  private nextId(prefix: string): string {
    this.sequence += 1;
    return `${prefix}${String(this.sequence).padStart(6, '0')}`;
  }

  /** Append one model step: a note, or a call batch with its results. */
  step(): void {
    const [low, high] = this.options.resultChars ?? [5000, 40_000];
    const roll = this.random();
    if (roll < (this.options.noteShare ?? 0.1)) {
      this.entries.push(
        assistantEntry(
          this.nextId('a'),
          `Progress note ${this.sequence}: the parser keeps a ${Math.floor(this.random() * 900 + 100)}-byte lookahead.`,
        ),
      );
      return;
    }
    const callCount = roll > 1 - (this.options.parallelShare ?? 0.15) ? 2 : 1;
    const calls = Array.from({ length: callCount }, (_, position) => ({
      id: `call_${this.sequence}_${position}`,
      name: position === 0 ? 'read' : 'grep',
      arguments: { path: `src/module_${Math.floor(this.random() * 400)}.c` },
    }));
    this.entries.push(
      assistantEntry(
        this.nextId('a'),
        `Reading ${calls.map((call) => call.arguments.path).join(' and ')} next.`,
        calls,
      ),
    );
    for (const call of calls) {
      const size = Math.floor(low + this.random() * (high - low));
      this.entries.push(
        toolResultEntry(
          this.nextId('r'),
          call.id,
          call.name,
          sourceLikeText(this.random, size, `${call.arguments.path}`),
        ),
      );
    }
  }
}
