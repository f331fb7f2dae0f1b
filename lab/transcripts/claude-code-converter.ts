import { stableStringify } from '../../core/util/hashing.ts';
import type { ToolCallReference, TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { contentText, numberOr } from './message-text.ts';
import { type RecordedResponse, type RecordedSession, recordedTime, type SkippedLine } from './recorded-session.ts';

interface PendingAssistant {
  readonly id: string;
  readonly blocks: Record<string, unknown>[];
  usage: RecordedResponse['usage'];
  model: string | undefined;
  /** The time of the response's first line: the nearest the file comes to when the request went out. */
  readonly time: number | undefined;
}

type Slot = { kind: 'entry'; entry: TranscriptEntry } | { kind: 'assistant'; assistant: PendingAssistant };

/**
 * Claude Code transcripts: one API response is spread over several `assistant` lines that
 * share `message.id` (merged here, usage counted once); tool results arrive as `user` lines
 * holding `tool_result` blocks (one entry each). Sub-agent (sidechain) lines, snapshots,
 * progress and synthetic messages are not part of the main conversation and are left out.
 * Lines are converted as they stream in; only a response's content blocks wait, as parsed
 * objects, until the end (its lines may be interleaved with others).
 */
export class ClaudeCodeConverter {
  private readonly slots: Slot[] = [];
  private readonly assistants = new Map<string, PendingAssistant>();
  private readonly toolNames = new Map<string, string>();
  private compactions = 0;
  /** Ids of the user entries that carry Claude Code's own compact summaries. */
  private readonly compactSummaries = new Set<string>();

  constructor(
    private readonly path: string,
    private readonly malformed: SkippedLine[],
  ) {}

  /** Take one parsed line. */
  accept({ line, value }: { line: number; value: Record<string, unknown> }): void {
    if (value.type === 'system' && value.subtype === 'compact_boundary') this.compactions += 1;
    if ((value.type !== 'user' && value.type !== 'assistant') || value.isSidechain === true) return;
    const message = value.message as Record<string, unknown> | undefined;
    if (typeof message !== 'object' || message === null) {
      this.malformed.push({ line, reason: `${String(value.type)} line without a message` });
      return;
    }
    if (value.type === 'assistant') this.acceptAssistant(line, value, message);
    else this.acceptUser(line, value, message);
  }

  /** The session once every line has been read. */
  finish(linesRead: number): RecordedSession {
    const entries: TranscriptEntry[] = [];
    const responses: RecordedResponse[] = [];
    for (const slot of this.slots) {
      if (slot.kind === 'entry') {
        entries.push(slot.entry);
        continue;
      }
      const { assistant } = slot;
      const toolCalls: ToolCallReference[] = assistant.blocks
        .filter((block) => block?.type === 'tool_use' && typeof block.id === 'string')
        .map((block) => ({
          id: block.id as string,
          name: String(block.name ?? 'tool'),
          argumentsJson: stableStringify(block.input ?? {}),
        }));
      const text = assistant.blocks
        .filter((block) => block?.type === 'text')
        .map((block) => String(block.text ?? ''))
        .join('\n');
      responses.push({
        entryIndex: entries.length,
        usage: assistant.usage,
        ...(assistant.model === undefined ? {} : { model: assistant.model }),
        ...(assistant.time === undefined ? {} : { time: assistant.time }),
      });
      entries.push({
        id: assistant.id,
        role: 'assistant',
        bytes: stableStringify({ role: 'assistant', id: assistant.id, content: assistant.blocks }),
        text,
        ...(toolCalls.length > 0 ? { toolCalls } : {}),
      });
    }
    this.slots.length = 0;
    this.malformed.sort((left, right) => left.line - right.line);
    // After a compact summary the model is sent the summary and what follows it, nothing before.
    const hostCompactions = entries.flatMap((entry, index) =>
      this.compactSummaries.has(entry.id) ? [{ fromEntry: index, firstKeptEntry: index + 1, summary: entry.text }] : [],
    );
    return {
      format: 'claude-code',
      path: this.path,
      entries,
      responses,
      compactions: this.compactions,
      hostCompactions,
      malformedLines: this.malformed,
      linesRead,
    };
  }

  private acceptAssistant(line: number, value: Record<string, unknown>, message: Record<string, unknown>): void {
    if (message.model === '<synthetic>') return;
    const id = typeof message.id === 'string' ? message.id : String(value.uuid ?? `L${line}`);
    let assistant = this.assistants.get(id);
    if (assistant === undefined) {
      assistant = {
        id,
        blocks: [],
        usage: undefined,
        model: typeof message.model === 'string' ? message.model : undefined,
        time: recordedTime(value.timestamp),
      };
      this.assistants.set(id, assistant);
      this.slots.push({ kind: 'assistant', assistant });
    }
    for (const block of Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : []) {
      assistant.blocks.push(block);
      if (block?.type === 'tool_use' && typeof block.id === 'string')
        this.toolNames.set(block.id, String(block.name ?? 'tool'));
    }
    assistant.usage = mergeUsage(assistant.usage, claudeUsage(message.usage));
  }

  private acceptUser(line: number, value: Record<string, unknown>, message: Record<string, unknown>): void {
    const uuid = String(value.uuid ?? `L${line}`);
    if (value.isCompactSummary === true) this.compactSummaries.add(uuid);
    if (typeof message.content === 'string') {
      this.slots.push({
        kind: 'entry',
        entry: {
          id: uuid,
          role: 'user',
          bytes: stableStringify({ role: 'user', content: message.content }),
          text: message.content,
        },
      });
      return;
    }
    const blocks = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
    const texts = blocks.filter((block) => block?.type !== 'tool_result');
    blocks.forEach((block, position) => {
      if (block?.type !== 'tool_result' || typeof block.tool_use_id !== 'string') return;
      this.slots.push({
        kind: 'entry',
        entry: {
          id: `${uuid}#${position}`,
          role: 'toolResult',
          bytes: stableStringify({ role: 'tool', ...block }),
          text: contentText(block.content),
          toolCallId: block.tool_use_id,
          toolName: this.toolNames.get(block.tool_use_id) ?? 'tool',
        },
      });
    });
    if (texts.length > 0)
      this.slots.push({
        kind: 'entry',
        entry: {
          id: uuid,
          role: 'user',
          bytes: stableStringify({ role: 'user', content: texts }),
          text: contentText(texts),
        },
      });
  }
}

/** Convert a whole Claude Code transcript already in memory (tests, small files). */
export function convertClaudeCode(
  path: string,
  lines: readonly { line: number; value: Record<string, unknown> }[],
  malformed: SkippedLine[],
  linesRead: number,
): RecordedSession {
  const converter = new ClaudeCodeConverter(path, malformed);
  for (const line of lines) converter.accept(line);
  return converter.finish(linesRead);
}

// Every line of a response repeats its usage, and an early line may hold a partial output
// count: the largest figure of each kind is the response's (counted once, never summed).
function mergeUsage(seen: RecordedResponse['usage'], next: RecordedResponse['usage']): RecordedResponse['usage'] {
  if (seen === undefined || next === undefined) return seen ?? next;
  return {
    input: Math.max(seen.input, next.input),
    cacheRead: Math.max(seen.cacheRead, next.cacheRead),
    cacheWrite: Math.max(seen.cacheWrite, next.cacheWrite),
    output: Math.max(seen.output, next.output),
    ...(seen.cacheWriteLong === undefined && next.cacheWriteLong === undefined
      ? {}
      : { cacheWriteLong: Math.max(seen.cacheWriteLong ?? 0, next.cacheWriteLong ?? 0) }),
  };
}

function claudeUsage(usage: unknown): RecordedResponse['usage'] {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  const creation = record.cache_creation as Record<string, unknown> | undefined;
  const longWrites = numberOr(
    typeof creation === 'object' && creation !== null ? creation.ephemeral_1h_input_tokens : 0,
    0,
  );
  return {
    // RequestUsage.input excludes cache writes (they are `cacheWrite`), as Pi records it.
    input: numberOr(record.input_tokens, 0),
    cacheRead: numberOr(record.cache_read_input_tokens, 0),
    cacheWrite: numberOr(record.cache_creation_input_tokens, 0),
    output: numberOr(record.output_tokens, 0),
    // Claude Code splits its writes by lifetime; the 1-hour ones bill at 2× input, the 5-minute ones at 1.25×.
    ...(longWrites > 0 ? { cacheWriteLong: longWrites } : {}),
  };
}
