import { piecesOf } from './need-pieces.ts';

/** One message of a conversation being summarized, as a summarizer reads it. */
export interface SummaryItem {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly text: string;
}

/** The stand-in's whole summary stays under this, about what a real host's summary runs to. */
export const STANDIN_SUMMARY_MAX_CHARS = 6000;
const REQUEST_LINE_CHARS = 160;
const REQUEST_LINES = 30;

/**
 * The replay's stand-in for a native summarizer. A real one is a model call the replay cannot
 * make; a stand-in that kept less than a real summary would make native look worse than it is.
 * So it keeps what a summary written from the conversation keeps: the user's requests (their
 * first lines) and the exact names the model itself worked with (the paths, identifiers,
 * numbers and commands in its text and its calls' arguments, newest first), merged with the
 * previous summary's. What only the tools printed is not in it: a summary is written from
 * what was said and done, and that is what a real one drops. Deterministic and capped.
 */
export function standInSummary(items: readonly SummaryItem[], previousSummary?: string): string {
  const requests: string[] = [];
  const names: string[] = [];
  if (previousSummary !== undefined) {
    requests.push(...sectionLines(previousSummary, REQUESTS_HEADING));
    names.push(...sectionLines(previousSummary, NAMES_HEADING).flatMap((line) => line.split(' · ')));
  }
  for (const item of items) {
    if (item.role === 'user') {
      const first = item.text.trim().split('\n', 1)[0]!.slice(0, REQUEST_LINE_CHARS);
      if (first.length > 0) requests.push(`- ${first}`);
    } else if (item.role === 'assistant') names.push(...piecesOf(item.text).map((piece) => piece.text));
  }
  const keptRequests = requests.slice(-REQUEST_LINES);
  const head = ['## Summary (deterministic replay summarizer)', REQUESTS_HEADING, ...keptRequests, NAMES_HEADING];
  const room = STANDIN_SUMMARY_MAX_CHARS - head.join('\n').length - 1;
  return [...head, newestDistinct(names, room)].join('\n');
}

const REQUESTS_HEADING = '### What the user asked';
const NAMES_HEADING = '### What the assistant worked with';

/** The lines under a heading of an earlier stand-in summary (none when it was a real one). */
function sectionLines(summary: string, heading: string): string[] {
  const lines = summary.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) return [];
  const end = lines.findIndex((line, position) => position > start && line.startsWith('### '));
  return lines.slice(start + 1, end < 0 ? undefined : end).filter((line) => line.trim().length > 0);
}

/** The newest distinct names, newest first, joined by ` · ` in at most `room` chars. */
function newestDistinct(names: readonly string[], room: number): string {
  const seen = new Set<string>();
  const kept: string[] = [];
  let used = 0;
  for (let position = names.length - 1; position >= 0; position -= 1) {
    const name = names[position]!;
    if (seen.has(name) || name.includes(' · ')) continue;
    seen.add(name);
    if (used + name.length + 3 > room) break;
    kept.push(name);
    used += name.length + 3;
  }
  return kept.join(' · ');
}

const SERIALIZED_ROLE = /^\[(User|Assistant|Assistant thinking|Assistant tool calls|Tool result)\]: /;

/**
 * The items of the prompt Pi's compaction sends its summarizer: the conversation serialized
 * in `<conversation>` (one `[Role]: text` block per message) and the previous summary in
 * `<previous-summary>`, if any.
 */
export function itemsOfSummaryPrompt(prompt: string): { items: SummaryItem[]; previousSummary?: string } {
  const conversation = between(prompt, '<conversation>\n', '\n</conversation>') ?? '';
  const previousSummary = between(prompt, '<previous-summary>\n', '\n</previous-summary>');
  const items: SummaryItem[] = [];
  for (const block of conversation.split(
    /\n\n(?=\[(?:User|Assistant|Assistant thinking|Assistant tool calls|Tool result)\]: )/,
  )) {
    const match = SERIALIZED_ROLE.exec(block);
    if (match === null) continue;
    const text = block.slice(match[0].length);
    const role = match[1] === 'User' ? 'user' : match[1] === 'Tool result' ? 'tool' : 'assistant';
    items.push({ role, text });
  }
  return previousSummary === undefined ? { items } : { items, previousSummary };
}

function between(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  if (start < 0) return undefined;
  const end = text.indexOf(close, start + open.length);
  return end < 0 ? undefined : text.slice(start + open.length, end);
}
