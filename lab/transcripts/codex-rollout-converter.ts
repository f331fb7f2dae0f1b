import { stableStringify } from '../../core/util/hashing.ts';
import type { ToolCallReference, TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { contentText, numberOr } from './message-text.ts';
import type { RecordedResponse, RecordedSession, SkippedLine } from './recorded-session.ts';

/** Response items the model produces: one API response is a run of these. */
const MODEL_ITEMS: ReadonlySet<string> = new Set([
  'message:assistant',
  'reasoning',
  'function_call',
  'custom_tool_call',
  'local_shell_call',
  'web_search_call',
]);
/** Items that carry a tool's output back, by the call id they answer. */
const OUTPUT_ITEMS: ReadonlySet<string> = new Set([
  'function_call_output',
  'custom_tool_call_output',
  'local_shell_call_output',
]);

/** One API response being gathered: its items (as parsed), until a non-model item or a token count closes it. */
interface OpenResponse {
  readonly firstLine: number;
  readonly items: Record<string, unknown>[];
  usage: RecordedResponse['usage'];
  readonly model: string | undefined;
}

/**
 * Codex CLI rollouts (`~/.codex/sessions/…/rollout-*.jsonl`), both shapes:
 * - current (`{timestamp, type, payload}` lines: `session_meta`, `turn_context` with the
 *   model, `response_item` with the Responses API items, `event_msg` whose `token_count`
 *   reports each API call's usage, `compacted`);
 * - legacy (a first line of session metadata without `type`, then bare response items and
 *   `record_type` state lines; no usage).
 * One API response is a run of model items (reasoning, assistant text, tool calls) ended by
 * the next user message or tool output, or by the `token_count` event the call produced. Its
 * usage is that event's `last_token_usage`; OpenAI counts cached input inside
 * `input_tokens`, so fresh input is the difference. Lines are converted as they stream in;
 * only the open response's items wait.
 */
export class CodexRolloutConverter {
  private readonly entries: TranscriptEntry[] = [];
  private readonly responses: RecordedResponse[] = [];
  private readonly toolNames = new Map<string, string>();
  private open: OpenResponse | undefined;
  /** A response closed (by a tool output) before its token count arrived: the count still belongs to it. */
  private awaitingUsage: number | undefined;
  private model: string | undefined;
  private compactions = 0;

  constructor(
    private readonly path: string,
    private readonly shape: 'codex' | 'codex-legacy',
    private readonly malformed: SkippedLine[],
  ) {}

  /** Take one parsed line. */
  accept({ line, value }: { line: number; value: Record<string, unknown> }): void {
    if (this.shape === 'codex-legacy') {
      // The metadata line and state lines carry no conversation.
      if (typeof value.type === 'string' && value.record_type === undefined) this.acceptItem(line, value);
      return;
    }
    const payload = value.payload;
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      this.malformed.push({ line, reason: `${String(value.type ?? 'rollout')} line without a payload object` });
      return;
    }
    const record = payload as Record<string, unknown>;
    switch (value.type) {
      case 'response_item':
        this.acceptItem(line, record);
        return;
      case 'turn_context':
        if (typeof record.model === 'string' && record.model.length > 0) this.model = record.model;
        return;
      case 'event_msg':
        if (record.type === 'token_count') this.acceptTokenCount(record);
        return;
      case 'compacted':
        this.compactions += 1;
        return;
      default:
        return;
    }
  }

  /** The session once every line has been read. */
  finish(linesRead: number): RecordedSession {
    this.closeResponse();
    this.malformed.sort((left, right) => left.line - right.line);
    return {
      format: this.shape,
      path: this.path,
      entries: this.entries,
      responses: this.responses,
      compactions: this.compactions,
      malformedLines: this.malformed,
      linesRead,
    };
  }

  private acceptItem(line: number, item: Record<string, unknown>): void {
    const kind = item.type === 'message' ? `message:${String(item.role)}` : String(item.type);
    if (MODEL_ITEMS.has(kind)) {
      if (this.open === undefined) {
        this.open = { firstLine: line, items: [], usage: undefined, model: this.model };
        this.awaitingUsage = undefined;
      }
      this.open.items.push(item);
      const callId = typeof item.call_id === 'string' ? item.call_id : undefined;
      if (callId !== undefined) this.toolNames.set(callId, toolName(item));
      return;
    }
    this.closeResponse();
    if (OUTPUT_ITEMS.has(kind)) {
      if (typeof item.call_id !== 'string') {
        this.malformed.push({ line, reason: `${kind} without a call_id` });
        return;
      }
      this.entries.push({
        id: `L${line}`,
        role: 'toolResult',
        bytes: stableStringify(item),
        text: outputText(item.output),
        toolCallId: item.call_id,
        toolName: this.toolNames.get(item.call_id) ?? 'tool',
      });
      return;
    }
    if (item.type === 'message') {
      // User and developer messages (instructions, environment context) are what the model was sent.
      this.entries.push({
        id: `L${line}`,
        role: 'user',
        bytes: stableStringify(item),
        text: contentText(item.content),
      });
    }
  }

  // A token count after a response is that call's usage; the call is over, so the response closes.
  private acceptTokenCount(event: Record<string, unknown>): void {
    if (this.open === undefined && this.awaitingUsage === undefined) return;
    const info = event.info as Record<string, unknown> | null | undefined;
    const last = info?.last_token_usage as Record<string, unknown> | undefined;
    if (typeof last !== 'object' || last === null) return;
    const inputTokens = numberOr(last.input_tokens, 0);
    const cached = Math.min(inputTokens, numberOr(last.cached_input_tokens, 0));
    const usage = {
      input: inputTokens - cached,
      cacheRead: cached,
      cacheWrite: 0,
      output: numberOr(last.output_tokens, 0),
    };
    if (this.open !== undefined) {
      this.open.usage = usage;
      this.closeResponse();
      return;
    }
    const index = this.awaitingUsage!;
    this.responses[index] = { ...this.responses[index]!, usage };
    this.awaitingUsage = undefined;
  }

  private closeResponse(): void {
    const open = this.open;
    if (open === undefined) return;
    this.open = undefined;
    const toolCalls: ToolCallReference[] = [];
    const texts: string[] = [];
    for (const item of open.items) {
      if (item.type === 'message') texts.push(contentText(item.content));
      else if (typeof item.call_id === 'string' && item.type !== 'web_search_call')
        toolCalls.push({ id: item.call_id, name: toolName(item), argumentsJson: callArguments(item) });
    }
    this.awaitingUsage = open.usage === undefined ? this.responses.length : undefined;
    this.responses.push({
      entryIndex: this.entries.length,
      usage: open.usage,
      ...(open.model === undefined ? {} : { model: open.model }),
    });
    this.entries.push({
      id: `L${open.firstLine}`,
      role: 'assistant',
      bytes: stableStringify({ role: 'assistant', items: open.items }),
      text: texts.join('\n'),
      ...(toolCalls.length > 0 ? { toolCalls } : {}),
    });
  }
}

function toolName(item: Record<string, unknown>): string {
  if (item.type === 'local_shell_call') return 'local_shell';
  return typeof item.name === 'string' && item.name.length > 0 ? item.name : 'tool';
}

// Function calls carry their arguments as a JSON string, custom tools (apply_patch) as free text.
function callArguments(item: Record<string, unknown>): string {
  if (item.type === 'function_call' && typeof item.arguments === 'string') {
    try {
      const parsed: unknown = JSON.parse(item.arguments);
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return stableStringify(parsed);
    } catch {
      // Not JSON: kept as text below.
    }
    return stableStringify({ arguments: item.arguments });
  }
  if (item.type === 'custom_tool_call') return stableStringify({ input: String(item.input ?? '') });
  if (item.type === 'local_shell_call') return stableStringify(item.action ?? {});
  return stableStringify({});
}

// Output is a string (often JSON with an `output` field), `{content, success}` in older
// versions, or a list of content items in newer ones.
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return contentText(output);
  if (typeof output === 'object' && output !== null) {
    const record = output as Record<string, unknown>;
    if (typeof record.content === 'string') return record.content;
    if (Array.isArray(record.content)) return contentText(record.content);
  }
  return stableStringify(output ?? '');
}
