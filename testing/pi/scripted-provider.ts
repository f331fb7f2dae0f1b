import {
  type AssistantMessage,
  type Context,
  createAssistantMessageEventStream,
  type Message,
  type TextContent,
  type ToolCall,
} from '@mariozechner/pi-ai';
import { type ProviderConfig, splitPrompt } from './scripted-host.ts';

/**
 * The offline model of a scripted Pi session: a provider whose `streamSimple` records exactly
 * what it receives, answers from a script, and reports usage as a prefix-caching provider
 * would (the messages shared with the previous request are read from cache).
 */

/** One request exactly as the scripted provider received it. */
export interface RecordedRequest {
  readonly index: number;
  readonly messages: readonly Message[];
  /** JSON of each message, in order: the bytes compared for docs/behaviour.md I1. */
  readonly serialized: readonly string[];
  /**
   * JSON of every message the provider was handed, in order, Pi's own `system` messages
   * included (Pi >= 0.8x carries the system prompt, its sections and the tool set in them).
   */
  readonly wire: readonly string[];
  /** The provider's own token count: every char it received / 4. */
  readonly promptTokens: number;
  /** The id of the scripted model that received it. */
  readonly model: string;
  /** Names of the tools the request offered the model. */
  readonly toolNames: readonly string[];
}

/** What the scripted model answers. */
export type ScriptedReply =
  | {
      readonly kind: 'text';
      readonly text: string /** Report this many input tokens instead of the real count (to cross Pi's compaction threshold). */;
      readonly reportTokens?: number;
    }
  | {
      readonly kind: 'tools';
      readonly text?: string;
      readonly calls: readonly { readonly name: string; readonly arguments: Record<string, unknown> }[];
    }
  | { readonly kind: 'overflow' };

export type Script = (request: RecordedRequest, history: readonly RecordedRequest[]) => ScriptedReply;

export const CONTEXT_WINDOW = 200_000;

/** The provider's part of a scripted session's options. */
export interface ScriptedProviderOptions {
  readonly script: Script;
  /** The scripted model's context window. @default 200000 */
  readonly contextWindow?: number;
  /** More scripted models beside `s1` (a model switch mid-session). */
  readonly extraModels?: readonly { readonly id: string; readonly contextWindow: number }[];
  /** Prefix of tool call ids; a process that resumes a session file needs its own so ids never repeat. @default 'call_' */
  readonly toolCallIdPrefix?: string;
  /** Hand each request's payload to Pi's `before_provider_request` hooks, as pi-ai's real providers do. @default true */
  readonly payloadHook?: boolean;
  /**
   * When the scripted reply arrives: `'microtask'` answers before the event loop turns, so
   * file writes under way in the background make no progress until something awaits them;
   * `'next-turn'` answers on the loop's next turn, as a reply read from a socket does.
   * @default 'microtask'
   */
  readonly replyOn?: 'microtask' | 'next-turn';
}

/** Where the provider writes what it saw: every request, and errors of Pi's payload hooks. */
export interface ScriptedProviderLog {
  readonly requests: RecordedRequest[];
  readonly errors: string[];
}

type StreamSimple = NonNullable<ProviderConfig['streamSimple']>;
type Model = Parameters<StreamSimple>[0];
type StreamOptions = Parameters<StreamSimple>[2];
type EventStream = ReturnType<typeof createAssistantMessageEventStream>;

/** The usage of a reply that cost nothing: the scripted provider's, and hand-built test messages'. */
export const ZERO_USAGE = {
  input: 0,
  output: 0,
  cacheRead: 0,
  cacheWrite: 0,
  totalTokens: 0,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
};

/** The `scripted` provider's registration: model `s1` (and `extraModels`), answering from `options.script`. */
export function scriptedProvider(options: ScriptedProviderOptions, log: ScriptedProviderLog): ProviderConfig {
  const toolCallIds = { next: 0, prefix: options.toolCallIdPrefix ?? 'call_' };
  const answer = (model: Model, context: Context, streamOptions: StreamOptions, stream: EventStream) =>
    answerRequest({ options, log, toolCallIds }, model, context, streamOptions, stream);
  return {
    api: 'scripted-api',
    apiKey: 'offline',
    baseUrl: 'http://localhost:0',
    models: [{ id: 's1', contextWindow: options.contextWindow ?? CONTEXT_WINDOW }, ...(options.extraModels ?? [])].map(
      ({ id, contextWindow }) => ({
        id,
        name: `Scripted ${id}`,
        reasoning: false,
        input: ['text' as const],
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow,
        maxTokens: 8192,
      }),
    ),
    streamSimple: (model, context: Context, streamOptions) => {
      const stream = createAssistantMessageEventStream();
      if (options.payloadHook === false) return answer(model, context, streamOptions, stream);
      // pi-ai's providers hand the request body to `onPayload` (Pi's before_provider_request) before sending it.
      const payload = {
        model: model.id,
        system: context.systemPrompt,
        messages: context.messages,
        tools: context.tools,
      };
      void Promise.resolve(streamOptions?.onPayload?.(payload, model)).then(
        () => answer(model, context, streamOptions, stream),
        (error: unknown) => log.errors.push(`onPayload: ${String(error)}`),
      );
      return stream;
    },
  };
}

interface Answering {
  readonly options: ScriptedProviderOptions;
  readonly log: ScriptedProviderLog;
  readonly toolCallIds: { next: number; readonly prefix: string };
}

/** Record one request, ask the script, and stream its reply (or the failure it asks for). */
function answerRequest(
  answering: Answering,
  model: Model,
  context: Context,
  streamOptions: StreamOptions,
  stream: EventStream,
): EventStream {
  const { options, log } = answering;
  const base = { api: model.api, provider: model.provider, model: model.id, timestamp: Date.now() };
  if (streamOptions?.signal?.aborted)
    return fail(stream, 'aborted', {
      ...base,
      role: 'assistant',
      content: [],
      usage: ZERO_USAGE,
      stopReason: 'aborted',
      errorMessage: 'aborted before sending',
    });
  const { request, overhead } = recordedRequest(log.requests.length, model, context);
  log.requests.push(request);
  const reply = options.script(request, log.requests);
  if (reply.kind === 'overflow') {
    return fail(stream, 'error', {
      ...base,
      role: 'assistant',
      content: [],
      usage: ZERO_USAGE,
      stopReason: 'error',
      errorMessage: `prompt is too long: ${request.promptTokens} tokens > ${CONTEXT_WINDOW} maximum`,
    });
  }
  const reported =
    reply.kind === 'text' && reply.reportTokens !== undefined ? reply.reportTokens : request.promptTokens;
  const previous = log.requests.length > 1 ? log.requests[log.requests.length - 2] : undefined;
  const message: AssistantMessage = {
    ...base,
    role: 'assistant',
    content: replyContent(reply, answering.toolCallIds),
    usage: cachedUsage(reported, request, previous, overhead),
    stopReason: reply.kind === 'tools' ? 'toolUse' : 'stop',
  };
  const deliver = () => {
    stream.push({ type: 'start', partial: message });
    stream.push({ type: 'done', reason: message.stopReason as 'stop' | 'toolUse', message });
    stream.end(message);
  };
  if (options.replyOn === 'next-turn') setImmediate(deliver);
  else queueMicrotask(deliver);
  return stream;
}

/** What the model received, as the suites compare it; `overhead` is the chars sent around the messages. */
function recordedRequest(
  index: number,
  model: Model,
  context: Context,
): { request: RecordedRequest; overhead: number } {
  const { messages, overhead } = splitPrompt(context);
  const serialized = messages.map((message) => JSON.stringify(message));
  const promptTokens = Math.ceil((serialized.reduce((sum, line) => sum + line.length, 0) + overhead) / 4);
  const wire = (context.messages as readonly unknown[]).map((message) => JSON.stringify(message));
  return {
    request: { index, messages, serialized, wire, promptTokens, model: model.id, toolNames: offeredToolNames(context) },
    overhead,
  };
}

function replyContent(
  reply: Exclude<ScriptedReply, { kind: 'overflow' }>,
  toolCallIds: Answering['toolCallIds'],
): (TextContent | ToolCall)[] {
  const content: (TextContent | ToolCall)[] = [];
  if (reply.kind === 'text' || reply.text !== undefined)
    content.push({ type: 'text', text: reply.kind === 'text' ? reply.text : reply.text! });
  if (reply.kind === 'tools') {
    for (const call of reply.calls)
      content.push({
        type: 'toolCall',
        id: `${toolCallIds.prefix}${(toolCallIds.next += 1)}`,
        name: call.name,
        arguments: call.arguments,
      });
  }
  return content;
}

/** Usage as a prefix-caching provider reports it: the messages shared with the previous request are read from cache. */
function cachedUsage(
  reported: number,
  request: RecordedRequest,
  previous: RecordedRequest | undefined,
  overhead: number,
): AssistantMessage['usage'] {
  let sharedChars = overhead;
  for (
    let position = 0;
    previous !== undefined &&
    position < previous.serialized.length &&
    previous.serialized[position] === request.serialized[position];
    position += 1
  )
    sharedChars += request.serialized[position]!.length;
  const cacheRead = previous === undefined ? 0 : Math.min(reported, Math.floor(sharedChars / 4));
  return { ...ZERO_USAGE, input: reported - cacheRead, cacheRead, output: 20, totalTokens: reported + 20 };
}

function fail(stream: EventStream, reason: 'aborted' | 'error', error: AssistantMessage): EventStream {
  queueMicrotask(() => {
    stream.push({ type: 'error', reason, error });
    stream.end(error);
  });
  return stream;
}

/**
 * Names of the tools a request offers. Pi 0.7x lists them in `context.tools`; from 0.8x on Pi
 * declares them in its `system` messages (`toolsAdded`, `toolsRemoved`), whose replay in order
 * is the tool set in force, and `context.tools` stays empty.
 */
function offeredToolNames(context: {
  readonly tools?: readonly { readonly name: string }[];
  readonly messages: readonly unknown[];
}): string[] {
  const listed = (context.tools ?? []).map((tool) => tool.name);
  if (listed.length > 0) return listed;
  const names = new Set<string>();
  for (const message of context.messages as readonly {
    role?: string;
    toolsAdded?: readonly { name: string }[];
    toolsRemoved?: readonly { name: string }[];
  }[]) {
    if (message.role !== 'system') continue;
    for (const tool of message.toolsAdded ?? []) names.add(tool.name);
    for (const tool of message.toolsRemoved ?? []) names.delete(tool.name);
  }
  return [...names];
}
