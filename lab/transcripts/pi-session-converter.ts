import { stableStringify } from '../../core/util/hashing.ts';
import type { ToolCallReference, TranscriptEntry } from '../../ports/transcript-source.port.ts';
import type { JsonLine } from './jsonl-lines.ts';
import { contentText, numberOr } from './message-text.ts';
import {
  type HostCompaction,
  type RecordedResponse,
  type RecordedSession,
  recordedTime,
  type SkippedLine,
} from './recorded-session.ts';

interface PiLine {
  readonly line: number;
  readonly value: Record<string, unknown>;
}

/** A v3 entry kept for the branch walk: its converted entry only, never the parsed line. */
interface TreeNode {
  readonly line: number;
  readonly parentId: string | undefined;
  readonly compaction: boolean;
  readonly converted: ConvertedMessage | undefined;
  /** A compaction's summary and the entry it kept from. */
  readonly summary?: { readonly text: string; readonly firstKeptId: string | undefined };
}

type ConvertedMessage =
  | {
      readonly entry: TranscriptEntry;
      readonly usage: RecordedResponse['usage'];
      readonly model?: string;
      readonly time?: number;
    }
  | { readonly problem: string };

/**
 * Pi session files: legacy v1 (linear, entries without ids) and v3 (a tree of entries with
 * id/parentId; the active branch runs from the newest entry back to the root). Every message
 * on the branch becomes an entry with its exact JSON as bytes. Lines are converted as they
 * stream in and their parsed form is let go: a v1 file is never held whole, a v3 file only as
 * converted entries until its branch is known.
 */
export class PiSessionConverter {
  private readonly version: 1 | 3;
  private readonly entries: TranscriptEntry[] = [];
  private readonly responses: RecordedResponse[] = [];
  private readonly tree = new Map<string, TreeNode>();
  private leafId: string | undefined;
  private compactions = 0;
  /** Each entry's file line (v1) or id (v3), to find a compaction's first kept entry. */
  private readonly entryKeys: (number | string)[] = [];
  private readonly pendingCompactions: { fromEntry: number; summary: string; firstKept: number | string }[] = [];

  constructor(
    private readonly path: string,
    header: Record<string, unknown>,
    private readonly malformed: SkippedLine[],
  ) {
    this.version = header.version === 3 ? 3 : 1;
  }

  /** Take one line after the header. */
  accept({ line, value }: PiLine): void {
    if (this.version === 1) {
      if (value.type === 'compaction') {
        this.compactions += 1;
        // A legacy compaction counts its first kept entry among the file's lines, header first.
        if (typeof value.summary === 'string' && typeof value.firstKeptEntryIndex === 'number')
          this.pendingCompactions.push({
            fromEntry: this.entries.length,
            summary: value.summary,
            firstKept: value.firstKeptEntryIndex + 1,
          });
      }
      if (value.type === 'message') this.append(line, convertMessage(`L${line}`, value), line);
      return;
    }
    if (typeof value.id !== 'string') {
      this.malformed.push({ line, reason: 'v3 entry without an id' });
      return;
    }
    const parentId = typeof value.parentId === 'string' ? value.parentId : undefined;
    const converted = value.type === 'message' ? convertMessage(value.id, value) : undefined;
    const summary =
      value.type === 'compaction' && typeof value.summary === 'string'
        ? {
            text: value.summary,
            firstKeptId: typeof value.firstKeptEntryId === 'string' ? value.firstKeptEntryId : undefined,
          }
        : undefined;
    this.tree.set(value.id, {
      line,
      parentId,
      compaction: value.type === 'compaction',
      converted,
      ...(summary === undefined ? {} : { summary }),
    });
    this.leafId = value.id;
  }

  /** The session once every line has been read. */
  finish(linesRead: number): RecordedSession {
    if (this.version === 3) {
      for (const node of this.activeBranch()) {
        if (node.compaction) this.compactions += 1;
        if (node.summary?.firstKeptId !== undefined)
          this.pendingCompactions.push({
            fromEntry: this.entries.length,
            summary: node.summary.text,
            firstKept: node.summary.firstKeptId,
          });
        if (node.converted !== undefined)
          this.append(node.line, node.converted, 'entry' in node.converted ? node.converted.entry.id : node.line);
      }
      this.tree.clear();
    }
    this.malformed.sort((left, right) => left.line - right.line);
    return {
      format: this.version === 3 ? 'pi-v3' : 'pi-v1',
      path: this.path,
      entries: this.entries,
      responses: this.responses,
      compactions: this.compactions,
      hostCompactions: this.hostCompactions(),
      malformedLines: this.malformed,
      linesRead,
    };
  }

  /** The compactions whose kept entry is on the converted branch: the first entry at or after it. */
  private hostCompactions(): HostCompaction[] {
    return this.pendingCompactions.flatMap(({ fromEntry, summary, firstKept }) => {
      const kept =
        typeof firstKept === 'number'
          ? this.entryKeys.findIndex((key) => typeof key === 'number' && key >= firstKept)
          : this.entryKeys.indexOf(firstKept);
      return kept < 0 || kept > fromEntry ? [] : [{ fromEntry, firstKeptEntry: kept, summary }];
    });
  }

  private append(line: number, converted: ConvertedMessage, key: number | string): void {
    if ('problem' in converted) {
      this.malformed.push({ line, reason: converted.problem });
      return;
    }
    if (converted.entry.role === 'assistant') {
      const { usage, model, time } = converted;
      this.responses.push({
        entryIndex: this.entries.length,
        usage,
        ...(model === undefined ? {} : { model }),
        ...(time === undefined ? {} : { time }),
      });
    }
    this.entries.push(converted.entry);
    this.entryKeys.push(key);
  }

  private activeBranch(): TreeNode[] {
    const branch: TreeNode[] = [];
    const seen = new Set<string>();
    for (let id = this.leafId; id !== undefined && !seen.has(id); ) {
      const node = this.tree.get(id);
      if (node === undefined) break;
      seen.add(id);
      branch.push(node);
      id = node.parentId;
    }
    return branch.reverse();
  }
}

/** Convert a whole Pi session already in memory (tests, small files). */
export function convertPiSession(
  path: string,
  header: Record<string, unknown>,
  lines: readonly PiLine[],
  malformed: SkippedLine[],
  linesRead: number,
): RecordedSession {
  const converter = new PiSessionConverter(path, header, malformed);
  for (const line of lines) converter.accept(line);
  return converter.finish(linesRead);
}

function convertMessage(id: string, value: Record<string, unknown>): ConvertedMessage {
  const message = value.message;
  if (typeof message !== 'object' || message === null) return { problem: 'message entry without a message object' };
  const record = message as Record<string, unknown>;
  const entry = piMessageEntry(id, record);
  if (entry === undefined) return { problem: `message role ${String(record.role)} is not one this converter knows` };
  if (entry.role !== 'assistant') return { entry, usage: undefined };
  // Pi stamps the message (ms) and the entry (ISO); either says when the response was written.
  const time = recordedTime(record.timestamp) ?? recordedTime(value.timestamp);
  return {
    entry,
    usage: piUsage(record.usage),
    ...(typeof record.model === 'string' && record.model.length > 0 ? { model: record.model } : {}),
    ...(time === undefined ? {} : { time }),
  };
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
        .map((block) => ({
          id: block.id as string,
          name: String(block.name ?? 'tool'),
          argumentsJson: stableStringify(block.arguments ?? {}),
        }));
      const text = content
        .filter((block) => block?.type === 'text')
        .map((block) => String(block.text ?? ''))
        .join('\n');
      return { id, role: 'assistant', bytes, text, ...(toolCalls.length > 0 ? { toolCalls } : {}) };
    }
    case 'toolResult':
      if (typeof message.toolCallId !== 'string') return undefined;
      return {
        id,
        role: 'toolResult',
        bytes,
        text: contentText(message.content),
        toolCallId: message.toolCallId,
        toolName: String(message.toolName ?? 'tool'),
      };
    default:
      return undefined;
  }
}

function piUsage(usage: unknown): RecordedResponse['usage'] {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  return {
    input: numberOr(record.input, 0),
    cacheRead: numberOr(record.cacheRead, 0),
    cacheWrite: numberOr(record.cacheWrite, 0),
    output: numberOr(record.output, 0),
  };
}

export type { JsonLine };
