import type { FoldKind } from '../../ports/fold-records.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';

/** Every brief, supplied or deterministic, fits in this many chars (docs/behaviour.md B5.1). */
export const BRIEF_MAX_CHARS = 2000;

const ARGUMENT_VALUE_CHARS = 96;
const ARGUMENTS_CHARS = 240;
const RESULT_HEAD_CHARS = 160;
const RESULT_TAIL_CHARS = 120;
const NOTE_CHARS = 160;
const OPENING_CHARS = 200;
// A consolidation's line for one child: its id, kind and the start of its brief. The child's
// whole brief is one peek of the consolidation away (children collapsed to one line each),
// and an index line that repeats most of it is paid again by every later request.
const CHILD_LINE_CHARS = 120;

/**
 * Deterministic briefs: written from the span itself with no model call, so the same span
 * always gets the same words (docs/behaviour.md I5) and nothing is invented.
 */
export function toolBrief(call: TranscriptEntry, results: readonly TranscriptEntry[]): string {
  const lines: string[] = [];
  for (const toolCall of call.toolCalls ?? []) {
    lines.push(`${toolCall.name}(${abbreviateArguments(toolCall.argumentsJson)})`);
  }
  for (const result of results) {
    const label = results.length > 1 ? `result ${result.toolName ?? ''} ` : 'result ';
    const short = oneLine(leading(result.text, RESULT_HEAD_CHARS + RESULT_TAIL_CHARS + 21));
    if (
      short.length <= RESULT_HEAD_CHARS + RESULT_TAIL_CHARS + 20 &&
      result.text.length <= 4 * (RESULT_HEAD_CHARS + RESULT_TAIL_CHARS + 20)
    ) {
      lines.push(`${label}(${result.text.length} chars): ${oneLine(result.text)}`);
    } else {
      lines.push(`${label}(${result.text.length} chars) starts: ${short.slice(0, RESULT_HEAD_CHARS)}`);
      lines.push(`… ends: ${oneLine(trailing(result.text, RESULT_TAIL_CHARS)).slice(-RESULT_TAIL_CHARS)}`);
    }
  }
  const note = oneLine(leading(call.text, NOTE_CHARS));
  if (note.length > 0) lines.push(`agent note: ${clip(note, NOTE_CHARS)}`);
  return clip(lines.join('\n'), BRIEF_MAX_CHARS);
}

/** A chapter carries its opening text, tool counts and every assistant note in order. */
export function chapterBrief(entries: readonly TranscriptEntry[]): string {
  const opening = entries.find((entry) => entry.role !== 'toolResult' && entry.text.trim().length > 0);
  const toolCounts = new Map<string, number>();
  const notes: string[] = [];
  for (const entry of entries) {
    for (const call of entry.toolCalls ?? []) toolCounts.set(call.name, (toolCounts.get(call.name) ?? 0) + 1);
    if (entry.role === 'assistant' && entry !== opening) {
      const note = oneLine(leading(entry.text, NOTE_CHARS));
      if (note.length > 0) notes.push(note);
    }
  }
  const head: string[] = [];
  if (opening !== undefined)
    head.push(
      `${opening.role === 'user' ? 'user' : 'opens'}: ${clip(oneLine(leading(opening.text, OPENING_CHARS)), OPENING_CHARS)}`,
    );
  if (toolCounts.size > 0) {
    const counts = [...toolCounts]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, count]) => `${name}×${count}`);
    head.push(`tools: ${counts.join(', ')}`);
  }
  return fitList(
    head,
    notes.map((note) => `note: ${note}`),
    NOTE_CHARS,
  );
}

/** A consolidation indexes its children (docs/behaviour.md B5.1): a short line each, less when many share the cap. */
export function consolidationBrief(children: readonly { id: string; kind: FoldKind; brief: string }[]): string {
  const head = [`covers ${children.length} folds`];
  const items = children.map((child) => `${child.id} (${child.kind}): ${oneLine(child.brief)}`);
  const fairShare = Math.floor((BRIEF_MAX_CHARS - head[0]!.length) / Math.max(1, children.length)) - 2;
  return fitList(head, items, Math.max(60, Math.min(CHILD_LINE_CHARS, fairShare)));
}

/** Fit fixed head lines plus a list whose items share what is left of the cap. */
function fitList(head: readonly string[], items: readonly string[], itemCap: number): string {
  const headText = head.join('\n');
  const room = BRIEF_MAX_CHARS - headText.length - 1;
  const share = Math.max(40, Math.min(itemCap, Math.floor(room / Math.max(1, items.length)) - 1));
  const lines = [...head];
  let used = headText.length;
  for (let position = 0; position < items.length; position += 1) {
    const line = clip(items[position]!, share);
    const remaining = items.length - position - 1;
    if (used + line.length + 1 > BRIEF_MAX_CHARS - (remaining > 0 ? 24 : 0)) {
      lines.push(`… and ${items.length - position} more`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return clip(lines.join('\n'), BRIEF_MAX_CHARS);
}

function abbreviateArguments(argumentsJson: string): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsJson);
  } catch {
    return clip(oneLine(argumentsJson), ARGUMENTS_CHARS);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    return clip(oneLine(argumentsJson), ARGUMENTS_CHARS);
  const pairs = Object.keys(parsed)
    .sort()
    .map((key) => {
      const value = (parsed as Record<string, unknown>)[key];
      const shown =
        typeof value === 'string'
          ? JSON.stringify(clip(oneLine(value), ARGUMENT_VALUE_CHARS))
          : clip(JSON.stringify(value) ?? 'null', ARGUMENT_VALUE_CHARS);
      return `${key}=${shown}`;
    });
  return clip(pairs.join(', '), ARGUMENTS_CHARS);
}

// Only the ends of a long text reach a brief, so only the ends are normalised: a brief
// costs the same for a 2 KB result as for a 2 MB one. A generous margin keeps whitespace
// runs from shortening the visible part.
function leading(text: string, chars: number): string {
  return text.length <= chars * 4 ? text : text.slice(0, chars * 4);
}

function trailing(text: string, chars: number): string {
  return text.length <= chars * 4 ? text : text.slice(-chars * 4);
}

export function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

export function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, Math.max(0, max - 1))}…`;
}
