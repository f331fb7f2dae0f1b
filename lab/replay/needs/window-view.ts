import type { Message } from '@mariozechner/pi-ai';

/** A placeholder of a fold in view: its kind, id and the lines of its brief. */
export interface PlaceholderInView {
  readonly kind: string;
  readonly id: string;
  readonly briefLines: readonly string[];
}

/** What a request's window shows a model, as a scorer reads it. */
export interface WindowView {
  /** Every word in view: texts, tool calls with their arguments, tool results, placeholders, summaries. */
  readonly text: string;
  readonly placeholders: readonly PlaceholderInView[];
  /** Tool results in view that a runtime spilled (head, pointer line, tail), by their text. */
  readonly spilledResults: readonly string[];
}

const PLACEHOLDER = /\[folded (tool|chapter|consolidation) (\S+) [^\n]*\]\n([\s\S]*?)\nexact source: /g;
const SPILL_MARK = '[pi-fold spilled ';

/** The window of one request, from the messages the provider received. */
export function windowOfMessages(messages: readonly Message[]): WindowView {
  const parts: string[] = [];
  const spilledResults: string[] = [];
  for (const message of messages) {
    if (message.role === 'user') {
      if (typeof message.content === 'string') parts.push(message.content);
      else for (const part of message.content) if (part.type === 'text') parts.push(part.text);
      continue;
    }
    if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type === 'text') parts.push(part.text);
        else if (part.type === 'thinking') parts.push(part.thinking);
        else if (part.type === 'toolCall')
          parts.push(`${part.name} ${JSON.stringify(part.arguments)}`, ...values(part.arguments));
      }
      continue;
    }
    const text = message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    parts.push(text);
    if (text.includes(SPILL_MARK)) spilledResults.push(text);
  }
  return windowOfText(parts.join('\n'), spilledResults);
}

/** A window given as its text (a recording's own windows: a summary and the entries kept after it). */
export function windowOfText(text: string, spilledResults: readonly string[] = []): WindowView {
  const placeholders: PlaceholderInView[] = [];
  if (text.includes('[folded '))
    for (const match of text.matchAll(PLACEHOLDER))
      placeholders.push({ kind: match[1]!, id: match[2]!, briefLines: match[3]!.split('\n') });
  return { text, placeholders, spilledResults };
}

// Argument values as the model reads them: a JSON string escapes quotes and newlines, so a
// piece inside a multi-line argument is searched in the value itself too.
function values(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(values);
  if (typeof value === 'object' && value !== null) return Object.values(value).flatMap(values);
  return [];
}

/**
 * True when `piece` stands in `text` as itself: a number or word inside a longer one
 * (`1234` in `12345`, `handler2` in `handler23`) is not it.
 */
export function holdsPiece(text: string, piece: string): boolean {
  const bounded = /^[\w$]/.test(piece) || /[\w$]$/.test(piece);
  for (let at = text.indexOf(piece); at >= 0; at = text.indexOf(piece, at + 1)) {
    if (!bounded) return true;
    const before = at === 0 ? '' : text[at - 1]!;
    const after = text[at + piece.length] ?? '';
    const startsWord = /^[\w$]/.test(piece);
    const endsWord = /[\w$]$/.test(piece);
    if ((!startsWord || !/[\w$]/.test(before)) && (!endsWord || !/[\w$]/.test(after))) return true;
  }
  return false;
}
