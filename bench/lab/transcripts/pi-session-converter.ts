import { stableStringify } from '../../../core/hashing.ts';
import type { TranscriptEntry, ToolCallReference } from '../../../ports/transcript-source.port.ts';
import type { JsonLine } from './jsonl-lines.ts';
import { contentText, numberOr } from './message-text.ts';
import type { RecordedResponse, RecordedSession, SkippedLine } from './recorded-session.ts';

interface PiLine {
  readonly line: number;
  readonly value: Record<string, unknown>;
}

/**
 * Pi session files: legacy v1 (linear, entries without ids) and v3 (a tree of entries with
 * id/parentId; the active branch runs from the newest entry back to the root). Every message
 * on the branch becomes an entry with its exact JSON as bytes.
 */
export function convertPiSession(path: string, header: Record<string, unknown>, lines: readonly PiLine[], malformed: SkippedLine[], linesRead: number): RecordedSession {
  const version = header.version === 3 ? 3 : 1;
  const branch = version === 3 ? activeBranch(lines, malformed) : lines;
  const entries: TranscriptEntry[] = [];
  const responses: RecordedResponse[] = [];
  let compactions = 0;
  for (const { line, value } of branch) {
    if (value.type === 'compaction') compactions += 1;
    if (value.type !== 'message') continue;
    const message = value.message;
    if (typeof message !== 'object' || message === null) {
      malformed.push({ line, reason: 'message entry without a message object' });
      continue;
    }
    const id = version === 3 && typeof value.id === 'string' ? value.id : `L${line}`;
    const entry = piMessageEntry(id, message as Record<string, unknown>);
    if (entry === undefined) {
      malformed.push({ line, reason: `message role ${String((message as Record<string, unknown>).role)} is not one this converter knows` });
      continue;
    }
    if (entry.role === 'assistant') responses.push({ entryIndex: entries.length, usage: piUsage((message as Record<string, unknown>).usage) });
    entries.push(entry);
  }
  return { format: version === 3 ? 'pi-v3' : 'pi-v1', path, entries, responses, compactions, malformedLines: malformed, linesRead };
}

function activeBranch(lines: readonly PiLine[], malformed: SkippedLine[]): PiLine[] {
  const byId = new Map<string, PiLine>();
  let leaf: PiLine | undefined;
  for (const line of lines) {
    if (typeof line.value.id !== 'string') {
      malformed.push({ line: line.line, reason: 'v3 entry without an id' });
      continue;
    }
    byId.set(line.value.id, line);
    leaf = line;
  }
  const branch: PiLine[] = [];
  const seen = new Set<string>();
  for (let current = leaf; current !== undefined; ) {
    const id = current.value.id as string;
    if (seen.has(id)) break;
    seen.add(id);
    branch.push(current);
    const parent = current.value.parentId;
    current = typeof parent === 'string' ? byId.get(parent) : undefined;
  }
  return branch.reverse();
}

function piMessageEntry(id: string, message: Record<string, unknown>): TranscriptEntry | undefined {
  const bytes = stableStringify(message);
  switch (message.role) {
    case 'user':
    case 'custom':
    case 'branchSummary':
    case 'compactionSummary':
      return { id, role: 'user', bytes, text: contentText(message.content ?? message.summary) };
    case 'bashExecution':
      return { id, role: 'user', bytes, text: `$ ${String(message.command ?? '')}\n${String(message.output ?? '')}` };
    case 'assistant': {
      const content = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
      const toolCalls: ToolCallReference[] = content
        .filter((block) => block?.type === 'toolCall' && typeof block.id === 'string')
        .map((block) => ({ id: block.id as string, name: String(block.name ?? 'tool'), argumentsJson: stableStringify(block.arguments ?? {}) }));
      const text = content.filter((block) => block?.type === 'text').map((block) => String(block.text ?? '')).join('\n');
      return { id, role: 'assistant', bytes, text, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
    }
    case 'toolResult':
      if (typeof message.toolCallId !== 'string') return undefined;
      return { id, role: 'toolResult', bytes, text: contentText(message.content), toolCallId: message.toolCallId, toolName: String(message.toolName ?? 'tool') };
    default:
      return undefined;
  }
}

function piUsage(usage: unknown): RecordedResponse['usage'] {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  return { input: numberOr(record.input, 0), cacheRead: numberOr(record.cacheRead, 0), cacheWrite: numberOr(record.cacheWrite, 0), output: numberOr(record.output, 0) };
}

export type { JsonLine };
