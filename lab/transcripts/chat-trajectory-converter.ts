import { stableStringify } from '../../core/util/hashing.ts';
import type { ToolCallReference, TranscriptEntry } from '../../ports/transcript-source.port.ts';
import type { DocumentPiece } from './json-document-stream.ts';
import { contentText, numberOr } from './message-text.ts';
import type { RecordedResponse, RecordedSession, SkippedLine } from './recorded-session.ts';

/**
 * OpenAI-style chat trajectories: mini-swe-agent's `.traj.json` (`{info, messages,
 * trajectory_format}`, or a bare array of messages) and any list of chat messages
 * (`system`/`user`/`assistant`/`tool`). Each assistant message is one response: its
 * `tool_calls` (`{id, function: {name, arguments}}`) pair with the `tool` messages that carry
 * their `tool_call_id`; a text-based agent's observations arrive as `user` messages. Usage is
 * the provider response kept in `extra.response.usage` (litellm's dump: `prompt_tokens`
 * includes cached and cache-written input), the model its `model`, else the trajectory's
 * `info.config.model.model_name`. The system message is what the model was sent, so it
 * enters as a user entry. Messages are converted as the document streams in.
 */
export class ChatTrajectoryConverter {
  private readonly entries: TranscriptEntry[] = [];
  private readonly responses: RecordedResponse[] = [];
  private readonly toolNames = new Map<string, string>();
  private configuredModel: string | undefined;

  constructor(
    private readonly path: string,
    private readonly malformed: SkippedLine[],
  ) {}

  /** Take one piece of the document. */
  accept(piece: DocumentPiece): void {
    if (piece.kind === 'problem') {
      this.malformed.push({ line: piece.line, reason: piece.problem });
      return;
    }
    if (piece.kind === 'field') {
      if (piece.key === 'info') this.configuredModel = configuredModel(piece.value);
      return;
    }
    const message = piece.value;
    if (
      typeof message !== 'object' ||
      message === null ||
      Array.isArray(message) ||
      typeof (message as Record<string, unknown>).role !== 'string'
    ) {
      this.malformed.push({ line: piece.line, reason: 'message without a role' });
      return;
    }
    this.acceptMessage(piece.line, message as Record<string, unknown>);
  }

  /** The session once the document has been read. */
  finish(linesRead: number): RecordedSession {
    const model = this.configuredModel;
    const responses =
      model === undefined
        ? this.responses
        : this.responses.map((response) => (response.model === undefined ? { ...response, model } : response));
    this.malformed.sort((left, right) => left.line - right.line);
    return {
      format: 'chat-trajectory',
      path: this.path,
      entries: this.entries,
      responses,
      compactions: 0,
      malformedLines: this.malformed,
      linesRead,
    };
  }

  private acceptMessage(line: number, message: Record<string, unknown>): void {
    // The wire form is the message without mini-swe-agent's bookkeeping (`extra`).
    const { extra, ...wire } = message;
    const id = `L${line}`;
    switch (message.role) {
      case 'system':
      case 'user':
      case 'developer':
        this.entries.push({ id, role: 'user', bytes: stableStringify(wire), text: contentText(message.content) });
        return;
      case 'assistant': {
        const toolCalls = assistantToolCalls(message.tool_calls);
        for (const call of toolCalls) this.toolNames.set(call.id, call.name);
        const response = (extra as Record<string, unknown> | undefined)?.response as
          | Record<string, unknown>
          | undefined;
        const model = typeof response?.model === 'string' && response.model.length > 0 ? response.model : undefined;
        this.responses.push({
          entryIndex: this.entries.length,
          usage: chatUsage(response?.usage),
          ...(model === undefined ? {} : { model }),
        });
        this.entries.push({
          id,
          role: 'assistant',
          bytes: stableStringify(wire),
          text: contentText(message.content),
          ...(toolCalls.length > 0 ? { toolCalls } : {}),
        });
        return;
      }
      case 'tool':
        if (typeof message.tool_call_id !== 'string') {
          this.malformed.push({ line, reason: 'tool message without a tool_call_id' });
          return;
        }
        this.entries.push({
          id,
          role: 'toolResult',
          bytes: stableStringify(wire),
          text: contentText(message.content),
          toolCallId: message.tool_call_id,
          toolName: this.toolNames.get(message.tool_call_id) ?? 'tool',
        });
        return;
      default:
        // mini-swe-agent ends with an `exit` message: bookkeeping, never sent to the model.
        return;
    }
  }
}

function assistantToolCalls(calls: unknown): ToolCallReference[] {
  if (!Array.isArray(calls)) return [];
  const references: ToolCallReference[] = [];
  for (const call of calls as Record<string, unknown>[]) {
    if (typeof call?.id !== 'string') continue;
    const fn = (call.function ?? {}) as Record<string, unknown>;
    references.push({
      id: call.id,
      name: typeof fn.name === 'string' && fn.name.length > 0 ? fn.name : 'tool',
      argumentsJson: argumentsJson(fn.arguments),
    });
  }
  return references;
}

function argumentsJson(text: unknown): string {
  if (typeof text !== 'string') return stableStringify(text ?? {});
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return stableStringify(parsed);
  } catch {
    // Kept as text below.
  }
  return stableStringify({ arguments: text });
}

function configuredModel(info: unknown): string | undefined {
  const model = ((info as Record<string, unknown> | undefined)?.config as Record<string, unknown> | undefined)?.model as
    | Record<string, unknown>
    | undefined;
  return typeof model?.model_name === 'string' && model.model_name.length > 0 ? model.model_name : undefined;
}

// Chat usage counts cached (and, through litellm for Anthropic, cache-written) input inside prompt_tokens.
function chatUsage(usage: unknown): RecordedResponse['usage'] {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const record = usage as Record<string, unknown>;
  const details = (record.prompt_tokens_details ?? {}) as Record<string, unknown>;
  const prompt = numberOr(record.prompt_tokens, 0);
  const cacheRead = numberOr(details.cached_tokens, numberOr(record.cache_read_input_tokens, 0));
  const cacheWrite = numberOr(record.cache_creation_input_tokens, numberOr(details.cache_creation_tokens, 0));
  return {
    input: Math.max(0, prompt - cacheRead - cacheWrite),
    cacheRead,
    cacheWrite,
    output: numberOr(record.completion_tokens, 0),
  };
}
