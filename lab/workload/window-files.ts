import type { Message } from '@mariozechner/pi-ai';

/** The fold runtime's agent tool (Pi adapter), used for peeks and searches when the session offers it. */
export const FOLD_TOOL = 'pi_fold_context';
/** Pi's file tool. */
export const READ_TOOL = 'read';

/** What the runtime leaves where a folded or peeked result was: never the file's text. */
const STUB_PREFIXES = ['[folded ', '[result folded into ', '[peek of '];

/** Text parts of a tool result, joined. */
function resultText(message: Extract<Message, { role: 'toolResult' }>): string {
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

function isStub(text: string): boolean {
  return STUB_PREFIXES.some((prefix) => text.startsWith(prefix));
}

interface ReadSightings {
  /** Tool call id → the path it read. */
  readonly calls: Map<string, string>;
  /** Path → the newest text of it seen. */
  readonly texts: Map<string, string>;
}

/** Record the read calls of an assistant message (live, or one found in a peek's exact source). */
function noteCalls(content: readonly unknown[], sightings: ReadSightings): void {
  for (const part of content) {
    const call = part as { type?: unknown; name?: unknown; id?: unknown; arguments?: { path?: unknown } };
    if (call.type === 'toolCall' && call.name === READ_TOOL && typeof call.id === 'string' && typeof call.arguments?.path === 'string') sightings.calls.set(call.id, call.arguments.path);
  }
}

/**
 * A peek's exact source holds each entry as one line of canonical JSON (the host message):
 * read calls and read results found there are as good as raw ones. A line cut short by a
 * partial peek does not parse and shows nothing.
 */
function notePeekedSource(text: string, sightings: ReadSightings): void {
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let message: { role?: unknown; content?: unknown; toolCallId?: unknown; toolName?: unknown };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      continue;
    }
    if (!Array.isArray(message.content)) continue;
    if (message.role === 'assistant') noteCalls(message.content, sightings);
    if (message.role === 'toolResult' && message.toolName === READ_TOOL && typeof message.toolCallId === 'string') {
      const path = sightings.calls.get(message.toolCallId);
      const body = (message.content as { type?: unknown; text?: unknown }[]).map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : '')).join('\n');
      if (path !== undefined && !isStub(body)) sightings.texts.set(path, body);
    }
  }
}

/**
 * Every file whose text the window shows, newest sighting per path: a raw `read` result, or
 * one inside a peek of a fold's exact source. Stubs and placeholders show no file: a file
 * folded away is not visible until it is peeked or read again.
 */
export function visibleFiles(messages: readonly Message[]): ReadonlyMap<string, string> {
  const sightings: ReadSightings = { calls: new Map(), texts: new Map() };
  for (const message of messages) {
    if (message.role === 'assistant') noteCalls(message.content, sightings);
    if (message.role !== 'toolResult') continue;
    const text = resultText(message);
    if (message.toolName === FOLD_TOOL) notePeekedSource(text, sightings);
    if (message.toolName !== READ_TOOL || isStub(text)) continue;
    const path = sightings.calls.get(message.toolCallId);
    if (path !== undefined) sightings.texts.set(path, text);
  }
  return sightings.texts;
}

/** Line `line` (1-based) of a file's visible text, trimmed; undefined when the window does not show the file. */
export function visibleLine(files: ReadonlyMap<string, string>, path: string, line: number): string | undefined {
  const text = files.get(path);
  if (text === undefined) return undefined;
  return text.split('\n')[line - 1]?.trim();
}

/**
 * The fold a mention belongs to: the last fold id seen before a mention (placeholders,
 * briefs, search hits and child-fold lines all name the fold before describing it),
 * skipping folds already tried.
 */
export function foldMentioning(visible: string, mentions: readonly string[], exclude: ReadonlySet<string>): string | undefined {
  const escaped = mentions.map((mention) => mention.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pattern = new RegExp(`fold_[0-9a-f]{24}|${escaped.join('|')}`, 'g');
  let lastFold: string | undefined;
  for (const match of visible.matchAll(pattern)) {
    if (match[0].startsWith('fold_')) lastFold = match[0];
    else if (lastFold !== undefined && !exclude.has(lastFold)) return lastFold;
  }
  return undefined;
}

/** How briefs and exact sources name a read of `path`: `read(path="…")` in a brief, `"path":"…"` in canonical JSON. */
export function readMentions(path: string): string[] {
  return [`${READ_TOOL}(path=${JSON.stringify(path)})`, `"path":${JSON.stringify(path)}`];
}
