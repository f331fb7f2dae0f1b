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
  /** Call id → the text of a read result seen without its call (a peek of a fold holding results only). */
  readonly byCallId: Map<string, string>;
}

/** The files a window shows: by path, and read results whose call is not in view by call id. */
export interface VisibleFiles {
  readonly byPath: ReadonlyMap<string, string>;
  readonly byCallId: ReadonlyMap<string, string>;
}

/** Record the read calls of an assistant message (live, or one found in a peek's exact source). */
function noteCalls(content: readonly unknown[], sightings: ReadSightings): void {
  for (const part of content) {
    const call = part as { type?: unknown; name?: unknown; id?: unknown; arguments?: { path?: unknown } };
    if (
      call.type === 'toolCall' &&
      call.name === READ_TOOL &&
      typeof call.id === 'string' &&
      typeof call.arguments?.path === 'string'
    )
      sightings.calls.set(call.id, call.arguments.path);
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
      const body = (message.content as { type?: unknown; text?: unknown }[])
        .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
        .join('\n');
      if (isStub(body)) continue;
      if (path !== undefined) sightings.texts.set(path, body);
      else sightings.byCallId.set(message.toolCallId, body);
    }
  }
}

/**
 * Every file whose text the window shows, newest sighting per path: a raw `read` result, or
 * one inside a peek of a fold's exact source. Stubs and placeholders show no file: a file
 * folded away is not visible until it is peeked or read again.
 */
export function visibleFiles(messages: readonly Message[]): VisibleFiles {
  const sightings: ReadSightings = { calls: new Map(), texts: new Map(), byCallId: new Map() };
  for (const message of messages) {
    if (message.role === 'assistant') noteCalls(message.content, sightings);
    if (message.role !== 'toolResult') continue;
    const text = resultText(message);
    if (message.toolName === FOLD_TOOL) notePeekedSource(text, sightings);
    if (message.toolName !== READ_TOOL || isStub(text)) continue;
    const path = sightings.calls.get(message.toolCallId);
    if (path !== undefined) sightings.texts.set(path, text);
  }
  return { byPath: sightings.texts, byCallId: sightings.byCallId };
}

/**
 * Line `line` (1-based) of a file's visible text, trimmed; undefined when the window does not
 * show the file. `callId` (the call that read it, when known) finds a result seen without its call.
 */
export function visibleLine(files: VisibleFiles, path: string, line: number, callId?: string): string | undefined {
  const text = files.byPath.get(path) ?? (callId === undefined ? undefined : files.byCallId.get(callId));
  if (text === undefined) return undefined;
  return text.split('\n')[line - 1]?.trim();
}

/**
 * The fold a mention belongs to: the last fold id seen before a mention (placeholders,
 * briefs, search hits and child-fold lines all name the fold before describing it),
 * skipping folds already tried.
 */
export function foldMentioning(
  visible: string,
  mentions: readonly string[],
  exclude: ReadonlySet<string>,
): string | undefined {
  const escaped = mentions.map(escapeRegExp);
  const pattern = new RegExp(`fold_[0-9a-f]{24}|${escaped.join('|')}`, 'g');
  let lastFold: string | undefined;
  for (const match of visible.matchAll(pattern)) {
    if (match[0].startsWith('fold_')) lastFold = match[0];
    else if (lastFold !== undefined && !exclude.has(lastFold)) return lastFold;
  }
  return undefined;
}

/**
 * The id of the newest call that read `path`, wherever the window shows it: a raw assistant
 * message, or canonical JSON in a search excerpt or a peek (`{"path":"P"},"id":"call_…"`).
 */
export function readCallId(messages: readonly Message[], visible: string, path: string): string | undefined {
  let found: string | undefined;
  for (const message of messages) {
    if (message.role !== 'assistant') continue;
    for (const part of message.content)
      if (part.type === 'toolCall' && part.name === READ_TOOL && part.arguments.path === path) found = part.id;
  }
  if (found !== undefined) return found;
  const pattern = new RegExp(`"path":${escapeRegExp(JSON.stringify(path))}\\},"id":"([^"]+)"`, 'g');
  for (const match of visible.matchAll(pattern)) found = match[1];
  return found;
}

/** How the exact source names the result of call `callId`. */
export function resultMention(callId: string): string {
  return `"toolCallId":${JSON.stringify(callId)}`;
}

/** The newest search hit whose excerpt shows `mention`: the fold and the peek offset the hit line gives. */
export function searchHitShowing(visible: string, mention: string): { foldId: string; offset: number } | undefined {
  const lines = visible.split('\n');
  let hit: { foldId: string; offset: number } | undefined;
  for (let position = 0; position + 1 < lines.length; position += 1) {
    const line =
      /^\d+\. fold (fold_[0-9a-f]{24}) · .* read: \{"action":"peek","id":"fold_[0-9a-f]{24}","offset":(\d+)\}$/.exec(
        lines[position]!,
      );
    if (line !== null && lines[position + 1]!.includes(mention)) hit = { foldId: line[1]!, offset: Number(line[2]) };
  }
  return hit;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** How briefs and exact sources name a read of `path`: `read(path="…")` in a brief, `"path":"…"` in canonical JSON. */
export function readMentions(path: string): string[] {
  return [`${READ_TOOL}(path=${JSON.stringify(path)})`, `"path":${JSON.stringify(path)}`];
}
