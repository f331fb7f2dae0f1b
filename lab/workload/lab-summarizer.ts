import type { Message } from '@mariozechner/pi-ai';

/** Chars the summarizer keeps at most (Pi asks for at most 0.8 × reserveTokens ≈ 13k tokens; this stays well inside). */
export const SUMMARY_MAX_CHARS = 8000;
const FIRST_LINE_CHARS = 160;
const NOTE_CHARS = 400;

/**
 * The deterministic summarizer that answers native compaction's summary calls, stated so the
 * baseline is reproducible: from Pi's serialized conversation it keeps the first line of
 * every message (160 chars), every note the agent wrote (`[Assistant]:` blocks, 400 chars),
 * and the previous summary's lines; when over 8,000 chars it keeps the newest lines. It
 * invents nothing and, like a model summarizer, drops what is not on a first line or in a note.
 */
export function summarizeForCompaction(messages: readonly Message[]): string {
  const prompt = messages
    .map((message) =>
      message.role === 'user'
        ? typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n')
        : '',
    )
    .join('\n');
  const previous = between(prompt, '<previous-summary>', '</previous-summary>');
  const conversation = between(prompt, '<conversation>', '</conversation>') ?? prompt;
  const kept: string[] = previous === undefined ? [] : previous.split('\n').filter((line) => line.startsWith('- '));
  for (const block of conversation.split(
    /\n(?=\[(?:User|Assistant|Assistant thinking|Assistant tool calls|Tool result)\]: )/,
  )) {
    const isNote = block.startsWith('[Assistant]: ');
    const text = isNote
      ? block.replace(/\s+/g, ' ').slice(0, NOTE_CHARS)
      : (block.split('\n')[0] ?? '').slice(0, FIRST_LINE_CHARS);
    if (text.trim().length > 0) kept.push(`- ${text}`);
  }
  const lines: string[] = [];
  let size = 0;
  for (let position = kept.length - 1; position >= 0; position -= 1) {
    const line = kept[position]!;
    if (size + line.length + 1 > SUMMARY_MAX_CHARS) break;
    lines.unshift(line);
    size += line.length + 1;
  }
  return ['## Progress so far (lab summarizer: first lines and agent notes)', ...lines].join('\n');
}

function between(text: string, open: string, close: string): string | undefined {
  const start = text.indexOf(open);
  const end = text.indexOf(close, start + open.length);
  return start === -1 || end === -1 ? undefined : text.slice(start + open.length, end);
}
