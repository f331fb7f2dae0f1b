import type { ModelMessage, ToolApprovalResponse, ToolModelMessage, ToolResultPart } from 'ai';
import { FoldError } from '../../../core/fold-error.ts';
import type { ProjectedMessage } from '../../../ports/projection-sink.port.ts';
import type { EntrySource, MessageEntryMapper } from './message-entries.ts';

type ToolPart = ToolResultPart | ToolApprovalResponse;

/** Tool parts waiting to be joined back into the tool message they came from. */
interface ToolGroup {
  readonly original: ToolModelMessage;
  readonly parts: ToolPart[];
  /** True while every part is the original part, so the original message can be sent as is. */
  untouched: boolean;
}

/**
 * Turns the engine's host-neutral projection back into AI SDK messages: an entry becomes
 * the original message (or tool part), a placeholder/notice/receipt a user message, and a
 * stub a tool result for the same call whose output is the stub's text. Tool parts are
 * joined back into the tool message they were split from, so every call keeps its result
 * in the message right after it (no MissingToolResultsError, no orphan result).
 */
export class ProjectedMessageConverter {
  private readonly userMessages = new WeakMap<ProjectedMessage, ModelMessage>();
  private readonly stubParts = new WeakMap<ProjectedMessage, ToolResultPart>();
  private readonly spilledMessages = new WeakMap<ProjectedMessage, ModelMessage>();

  constructor(private readonly mapper: MessageEntryMapper) {}

  toModelMessages(projected: readonly ProjectedMessage[]): ModelMessage[] {
    const out: ModelMessage[] = [];
    let group: ToolGroup | undefined;
    const flush = () => {
      if (group === undefined) return;
      const sameAsOriginal = group.untouched && group.parts.length === group.original.content.length;
      out.push(sameAsOriginal ? group.original : { ...group.original, content: group.parts });
      group = undefined;
    };
    const addPart = (original: ToolModelMessage, part: ToolPart, isOriginalPart: boolean) => {
      if (group !== undefined && group.original !== original) flush();
      group ??= { original, parts: [], untouched: true };
      group.parts.push(part);
      group.untouched &&= isOriginalPart;
    };
    for (const message of projected) {
      if (message.kind === 'synthetic') {
        flush();
        out.push(this.userMessage(message));
        continue;
      }
      const source = this.requireSource(message.entryId);
      if (message.kind === 'stub') {
        if (source.kind !== 'tool-part') throw mismatch(message.entryId, 'a stub stands for a tool result part');
        addPart(source.message, this.stubPart(message), false);
        continue;
      }
      if (message.kind === 'spilled') {
        if (source.kind === 'tool-part') addPart(source.message, this.spilledPart(source.part, message), false);
        else {
          flush();
          out.push(this.spilledMessage(source.message, message));
        }
        continue;
      }
      if (source.kind === 'tool-part') {
        addPart(source.message, source.part, true);
        continue;
      }
      flush();
      out.push(source.message);
    }
    flush();
    return out;
  }

  private requireSource(entryId: string): EntrySource {
    const source = this.mapper.sourceOf(entryId);
    if (source === undefined) throw mismatch(entryId, 'no message of this history has that id');
    return source;
  }

  private userMessage(message: Extract<ProjectedMessage, { kind: 'synthetic' }>): ModelMessage {
    let converted = this.userMessages.get(message);
    if (converted === undefined) {
      converted = { role: 'user', content: [{ type: 'text', text: message.text }] };
      this.userMessages.set(message, converted);
    }
    return converted;
  }

  /** A result part whose output is its spilled window form (docs/behaviour.md B6.2). */
  private spilledPart(part: ToolPart, message: Extract<ProjectedMessage, { kind: 'spilled' }>): ToolPart {
    if (part.type !== 'tool-result' || message.resultText === undefined)
      throw mismatch(message.entryId, 'a spilled entry of a tool message must be a tool result');
    return { ...part, output: spilledOutput(part.output, message.resultText) };
  }

  /** An assistant message whose spilled tool-call inputs show their window form (docs/behaviour.md B6.2). */
  private spilledMessage(
    original: ModelMessage,
    message: Extract<ProjectedMessage, { kind: 'spilled' }>,
  ): ModelMessage {
    let converted = this.spilledMessages.get(message);
    if (converted === undefined) {
      if (
        original.role !== 'assistant' ||
        typeof original.content === 'string' ||
        message.toolCallArguments === undefined
      ) {
        throw mismatch(message.entryId, 'a spilled message must be an assistant message with tool calls');
      }
      const replaced = new Map(message.toolCallArguments.map((call) => [call.toolCallId, call.argumentsJson]));
      const content = original.content.map((part) => {
        const argumentsJson = part.type === 'tool-call' ? replaced.get(part.toolCallId) : undefined;
        return argumentsJson === undefined ? part : { ...part, input: JSON.parse(argumentsJson) as unknown };
      });
      converted = { ...original, content };
      this.spilledMessages.set(message, converted);
    }
    return converted;
  }

  private stubPart(message: Extract<ProjectedMessage, { kind: 'stub' }>): ToolResultPart {
    let part = this.stubParts.get(message);
    if (part === undefined) {
      part = {
        type: 'tool-result',
        toolCallId: message.toolCallId,
        toolName: message.toolName,
        output: { type: 'text', value: message.text },
      };
      this.stubParts.set(message, part);
    }
    return part;
  }
}

/** The output a spilled result shows: its window text, as text (or error text); media of a `content` output stay. */
function spilledOutput(output: ToolResultPart['output'], text: string): ToolResultPart['output'] {
  if (output.type === 'error-text' || output.type === 'error-json') return { type: 'error-text', value: text };
  if (output.type === 'content')
    return { type: 'content', value: [{ type: 'text', text }, ...output.value.filter((item) => item.type !== 'text')] };
  return { type: 'text', value: text };
}

function mismatch(entryId: string, reason: string): FoldError {
  return new FoldError('INVARIANT.BROKEN', `vercel-ai: the projection names entry ${entryId}, but ${reason}`, {
    details: { entryId },
  });
}
