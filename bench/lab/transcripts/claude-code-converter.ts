import { stableStringify } from '../../../core/hashing.ts';
import type { TranscriptEntry, ToolCallReference } from '../../../ports/transcript-source.port.ts';
import { contentText, numberOr } from './message-text.ts';
import type { RecordedResponse, RecordedSession, SkippedLine } from './recorded-session.ts';

interface PendingAssistant {
  readonly id: string;
  readonly blocks: Record<string, unknown>[];
  usage: RecordedResponse['usage'];
}

type Slot = { kind: 'entry'; entry: TranscriptEntry } | { kind: 'assistant'; assistant: PendingAssistant };

/**
 * Claude Code transcripts: one API response is spread over several `assistant` lines that
 * share `message.id` (merged here, usage counted once); tool results arrive as `user` lines
 * holding `tool_result` blocks (one entry each). Sub-agent (sidechain) lines, snapshots,
 * progress and synthetic messages are not part of the main conversation and are left out.
 */
export function convertClaudeCode(path: string, lines: readonly { line: number; value: Record<string, unknown> }[], malformed: SkippedLine[], linesRead: number): RecordedSession {
  const slots: Slot[] = [];
  const assistants = new Map<string, PendingAssistant>();
  const toolNames = new Map<string, string>();
  let compactions = 0;
  for (const { line, value } of lines) {
    if (value.type === 'system' && value.subtype === 'compact_boundary') compactions += 1;
    if ((value.type !== 'user' && value.type !== 'assistant') || value.isSidechain === true) continue;
    const message = value.message as Record<string, unknown> | undefined;
    if (typeof message !== 'object' || message === null) {
      malformed.push({ line, reason: `${String(value.type)} line without a message` });
      continue;
    }
    if (value.type === 'assistant') {
      if (message.model === '<synthetic>') continue;
      const id = typeof message.id === 'string' ? message.id : String(value.uuid ?? `L${line}`);
      let assistant = assistants.get(id);
      if (assistant === undefined) {
        assistant = { id, blocks: [], usage: undefined };
        assistants.set(id, assistant);
        slots.push({ kind: 'assistant', assistant });
      }
      for (const block of Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : []) {
        assistant.blocks.push(block);
        if (block?.type === 'tool_use' && typeof block.id === 'string') toolNames.set(block.id, String(block.name ?? 'tool'));
      }
      assistant.usage ??= claudeUsage(message.usage);
      continue;
    }
    const uuid = String(value.uuid ?? `L${line}`);
    if (typeof message.content === 'string') {
      slots.push({ kind: 'entry', entry: { id: uuid, role: 'user', bytes: stableStringify({ role: 'user', content: message.content }), text: message.content } });
      continue;
    }
    const blocks = Array.isArray(message.content) ? (message.content as Record<string, unknown>[]) : [];
    const texts = blocks.filter((block) => block?.type !== 'tool_result');
    blocks.forEach((block, position) => {
      if (block?.type !== 'tool_result' || typeof block.tool_use_id !== 'string') return;
      slots.push({
        kind: 'entry',
        entry: {
          id: `${uuid}#${position}`,
          role: 'toolResult',
          bytes: stableStringify({ role: 'tool', ...block }),
          text: contentText(block.content),
          toolCallId: block.tool_use_id,
          toolName: toolNames.get(block.tool_use_id) ?? 'tool',
        },
      });
    });
    if (texts.length > 0) slots.push({ kind: 'entry', entry: { id: uuid, role: 'user', bytes: stableStringify({ role: 'user', content: texts }), text: contentText(texts) } });
  }
  const entries: TranscriptEntry[] = [];
  const responses: RecordedResponse[] = [];
  for (const slot of slots) {
    if (slot.kind === 'entry') {
      entries.push(slot.entry);
      continue;
    }
    const { assistant } = slot;
    const toolCalls: ToolCallReference[] = assistant.blocks
      .filter((block) => block?.type === 'tool_use' && typeof block.id === 'string')
      .map((block) => ({ id: block.id as string, name: String(block.name ?? 'tool'), argumentsJson: stableStringify(block.input ?? {}) }));
    const text = assistant.blocks.filter((block) => block?.type === 'text').map((block) => String(block.text ?? '')).join('\n');
    responses.push({ entryIndex: entries.length, usage: assistant.usage });
    entries.push({ id: assistant.id, role: 'assistant', bytes: stableStringify({ role: 'assistant', id: assistant.id, content: assistant.blocks }), text, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
  }
  return { format: 'claude-code', path, entries, responses, compactions, malformedLines: malformed, linesRead };
}

function claudeUsage(usage: unknown): RecordedResponse['usage'] {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  return {
    input: numberOr(record.input_tokens, 0) + numberOr(record.cache_creation_input_tokens, 0),
    cacheRead: numberOr(record.cache_read_input_tokens, 0),
    cacheWrite: numberOr(record.cache_creation_input_tokens, 0),
    output: numberOr(record.output_tokens, 0),
  };
}
