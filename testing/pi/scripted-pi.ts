import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAssistantMessageEventStream, type AssistantMessage, type Context, type Message, type ToolCall, type TextContent } from '@mariozechner/pi-ai';
import { createAgentSession, DefaultResourceLoader, SessionManager, SettingsManager, VERSION, type AgentSession, type ExtensionAPI, type ModelRegistry, type ToolDefinition } from '@mariozechner/pi-coding-agent';
import { Type } from 'typebox';
import { registerPiFold, type PiFoldRegistration } from '../../adapters/pi/register-pi-fold.ts';
import type { PiHostScope } from '../../adapters/pi/host-api.ts';
import type { PiFoldOptions } from '../../adapters/pi/session-registry.ts';
import type { LedgerRow, Projection } from '../../ports/projection-sink.port.ts';
import { notifyingUi, scriptedModelHost, splitPrompt, type ProviderConfig } from './scripted-host.ts';

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
  | { readonly kind: 'text'; readonly text: string; /** Report this many input tokens instead of the real count (to cross Pi's compaction threshold). */ readonly reportTokens?: number }
  | { readonly kind: 'tools'; readonly text?: string; readonly calls: readonly { readonly name: string; readonly arguments: Record<string, unknown> }[] }
  | { readonly kind: 'overflow' };

export type Script = (request: RecordedRequest, history: readonly RecordedRequest[]) => ScriptedReply;

export const CONTEXT_WINDOW = 200_000;

/**
 * The Pi these suites drive: the root's 0.x (`@mariozechner`) on Node 20, or the current 1.x
 * (`@earendil-works`) when the compatibility job maps the imports (compat/node22).
 */
export const PI_VERSION: string = VERSION;
export const PI_HOST_SCOPE: PiHostScope = VERSION.startsWith('0.') ? '@mariozechner' : '@earendil-works';

/** Deterministic filler text of `size` chars for tool results. */
export function blobText(seed: number, size: number): string {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'lambda', 'theta', 'zeta'];
  const parts: string[] = [`blob ${seed} begins.`];
  let length = parts[0]!.length;
  let state = seed * 7919 + 13;
  while (length < size) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const word = `${words[state % words.length]}${state % 97}`;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ').slice(0, size);
}

/** A tool that returns a deterministic blob of the requested size (the agent's "reads"). */
export const fetchBlobTool: ToolDefinition = {
  name: 'fetch_blob',
  label: 'Fetch blob',
  description: 'Return a deterministic blob of text',
  parameters: Type.Object({ seed: Type.Integer(), size: Type.Integer() }),
  async execute(_id, params) {
    const { seed, size } = params as { seed: number; size: number };
    return { content: [{ type: 'text', text: blobText(seed, size) }], details: {} };
  },
};

export interface ScriptedPi {
  readonly session: AgentSession;
  readonly requests: RecordedRequest[];
  readonly ledger: LedgerRow[];
  readonly registration: PiFoldRegistration;
  readonly notices: string[];
  /** Errors Pi caught in extension handlers (must stay empty). */
  readonly errors: string[];
  readonly sessionManager: SessionManager;
  /** A scripted model by id (`s1`, or one of `extraModels`), e.g. for `session.setModel`. */
  readonly model: (id: string) => NonNullable<ReturnType<ModelRegistry['find']>>;
}

/**
 * Settings that keep the harness's 20–24 KB `fetch_blob` results raw (a spill threshold
 * above them, docs/behaviour.md B6.2): for tests of folding, commits and recovery that need the window to fill
 * at the pace of whole results. Spill itself is tested with the default policy.
 */
export const KEEP_BLOBS_RAW: Readonly<Record<string, unknown>> = Object.freeze({ spill: { thresholdBytes: 65_536, keepBytes: 4_096 } });

/** Options for one scripted Pi session. */
export interface ScriptedPiOptions {
  readonly script: Script;
  readonly fold: PiFoldOptions;
  /** An existing session file to reopen (restart), else a new session in `sessionDirectory`. */
  readonly sessionFile?: string;
  readonly sessionDirectory?: string;
  readonly compaction?: boolean;
  /** The scripted model's context window. @default 200000 */
  readonly contextWindow?: number;
  /** Wrap the extension API pi-fold registers on (the benchmark times the context hook this way). */
  readonly wrapExtensionApi?: (pi: ExtensionAPI) => ExtensionAPI;
  /** Prefix of tool call ids; a process that resumes a session file needs its own so ids never repeat. @default 'call_' */
  readonly toolCallIdPrefix?: string;
  /** More scripted models beside `s1` (a model switch mid-session). */
  readonly extraModels?: readonly { readonly id: string; readonly contextWindow: number }[];
  /** Other extensions loaded before and after pi-fold (a rival context manager). */
  readonly otherExtensions?: { readonly before?: readonly ((pi: ExtensionAPI) => void)[]; readonly after?: readonly ((pi: ExtensionAPI) => void)[] };
  /** Tools the session offers beside `fetch_blob`. */
  readonly extraTools?: readonly ToolDefinition[];
  /** Hand each request's payload to Pi's `before_provider_request` hooks, as pi-ai's real providers do. @default true */
  readonly payloadHook?: boolean;
  /** More providers beside `scripted`, e.g. one on pi-ai's own API code against a local server. */
  readonly providers?: readonly { readonly name: string; readonly config: ProviderConfig }[];
  /** The model the session starts on. @default the scripted `s1` */
  readonly startModel?: { readonly provider: string; readonly id: string };
  /**
   * When the scripted reply arrives: `'microtask'` answers before the event loop turns, so
   * file writes under way in the background make no progress until something awaits them;
   * `'next-turn'` answers on the loop's next turn, as a reply read from a socket does.
   * @default 'microtask'
   */
  readonly replyOn?: 'microtask' | 'next-turn';
}

/**
 * A real Pi AgentSession, fully offline: a provider registered through ModelRegistry whose
 * `streamSimple` records exactly what the model receives and answers from a script, with
 * pi-fold loaded as an extension factory and a `fetch_blob` tool for large results.
 */
export async function openScriptedPi(options: ScriptedPiOptions): Promise<ScriptedPi> {
  const opened = await openSession(options, true);
  if (opened.registration === undefined) throw new Error('pi-fold did not register');
  return { ...opened, registration: opened.registration };
}

/** The same scripted Pi session without pi-fold: the host alone, the reference the latency benchmark measures against. */
export async function openScriptedHostAlone(options: Omit<ScriptedPiOptions, 'fold' | 'wrapExtensionApi'>): Promise<Omit<ScriptedPi, 'registration' | 'ledger'>> {
  const { registration: _none, ledger: _empty, ...opened } = await openSession({ ...options, fold: {} }, false);
  return opened;
}

async function openSession(options: ScriptedPiOptions, withFold: boolean): Promise<Omit<ScriptedPi, 'registration'> & { registration: PiFoldRegistration | undefined }> {
  const requests: RecordedRequest[] = [];
  const ledger: LedgerRow[] = [];
  const notices: string[] = [];
  const errors: string[] = [];
  const workDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-pi-'));
  const agentDirectory = join(workDirectory, 'agent');
  const models = await scriptedModelHost(workDirectory);
  let responseCounter = 0;
  models.registerProvider('scripted', {
    api: 'scripted-api',
    apiKey: 'offline',
    baseUrl: 'http://localhost:0',
    models: [{ id: 's1', contextWindow: options.contextWindow ?? CONTEXT_WINDOW }, ...(options.extraModels ?? [])].map(({ id, contextWindow }) => ({ id, name: `Scripted ${id}`, reasoning: false, input: ['text' as const], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow, maxTokens: 8192 })),
    streamSimple: (model, context: Context, streamOptions) => {
      const stream = createAssistantMessageEventStream();
      if (options.payloadHook === false) return answer(model, context, streamOptions, stream);
      // pi-ai's providers hand the request body to `onPayload` (Pi's before_provider_request) before sending it.
      const payload = { model: model.id, system: context.systemPrompt, messages: context.messages, tools: context.tools };
      void Promise.resolve(streamOptions?.onPayload?.(payload, model)).then(
        () => answer(model, context, streamOptions, stream),
        (error: unknown) => errors.push(`onPayload: ${String(error)}`),
      );
      return stream;
    },
  });
  for (const provider of options.providers ?? []) models.registerProvider(provider.name, provider.config);
  function answer(model: Parameters<StreamSimple>[0], context: Context, streamOptions: Parameters<StreamSimple>[2], stream: AssistantMessageEventStream): AssistantMessageEventStream {
    const { messages, overhead } = splitPrompt(context);
    const serialized = messages.map((message) => JSON.stringify(message));
    const promptTokens = Math.ceil((serialized.reduce((sum, line) => sum + line.length, 0) + overhead) / 4);
    const base = { api: model.api, provider: model.provider, model: model.id, timestamp: Date.now() };
    const zero = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
    if (streamOptions?.signal?.aborted) {
      const aborted: AssistantMessage = { ...base, role: 'assistant', content: [], usage: zero, stopReason: 'aborted', errorMessage: 'aborted before sending' };
      queueMicrotask(() => {
        stream.push({ type: 'error', reason: 'aborted', error: aborted });
        stream.end(aborted);
      });
      return stream;
    }
    const wire = (context.messages as readonly unknown[]).map((message) => JSON.stringify(message));
    const request: RecordedRequest = { index: requests.length, messages, serialized, wire, promptTokens, model: model.id, toolNames: offeredToolNames(context) };
    requests.push(request);
    const reply = options.script(request, requests);
    if (reply.kind === 'overflow') {
      const failed: AssistantMessage = { ...base, role: 'assistant', content: [], usage: zero, stopReason: 'error', errorMessage: `prompt is too long: ${promptTokens} tokens > ${CONTEXT_WINDOW} maximum` };
      queueMicrotask(() => {
        stream.push({ type: 'error', reason: 'error', error: failed });
        stream.end(failed);
      });
      return stream;
    }
    const content: (TextContent | ToolCall)[] = [];
    if (reply.kind === 'text' || reply.text !== undefined) content.push({ type: 'text', text: reply.kind === 'text' ? reply.text : reply.text! });
    if (reply.kind === 'tools') {
      for (const call of reply.calls) content.push({ type: 'toolCall', id: `${options.toolCallIdPrefix ?? 'call_'}${(responseCounter += 1)}`, name: call.name, arguments: call.arguments });
    }
    const reported = reply.kind === 'text' && reply.reportTokens !== undefined ? reply.reportTokens : promptTokens;
    // A prefix cache like a real provider's: the messages shared with the previous request are read from cache.
    const previous = requests.length > 1 ? requests[requests.length - 2]! : undefined;
    let sharedChars = overhead;
    for (let position = 0; previous !== undefined && position < previous.serialized.length && previous.serialized[position] === serialized[position]; position += 1) sharedChars += serialized[position]!.length;
    const cacheRead = previous === undefined ? 0 : Math.min(reported, Math.floor(sharedChars / 4));
    const usage = { ...zero, input: reported - cacheRead, cacheRead, output: 20, totalTokens: reported + 20 };
    const message: AssistantMessage = { ...base, role: 'assistant', content, usage, stopReason: reply.kind === 'tools' ? 'toolUse' : 'stop' };
    const deliver = () => {
      stream.push({ type: 'start', partial: message });
      stream.push({ type: 'done', reason: message.stopReason as 'stop' | 'toolUse', message });
      stream.end(message);
    };
    if (options.replyOn === 'next-turn') setImmediate(deliver);
    else queueMicrotask(deliver);
    return stream;
  }

  const settingsManager = SettingsManager.inMemory({ compaction: { enabled: options.compaction ?? true } });
  let registration: PiFoldRegistration | undefined;
  const sink = {
    specificationVersion: 'v1' as const,
    accept: (projection: Projection) => {
      ledger.push(projection.ledger);
      options.fold.projectionSink?.accept(projection);
    },
  };
  const resourceLoader = new DefaultResourceLoader({
    cwd: workDirectory,
    agentDir: agentDirectory,
    settingsManager,
    extensionFactories: [
      ...(options.otherExtensions?.before ?? []),
      ...(withFold
        ? [
            (pi: ExtensionAPI) => {
              registration = registerPiFold(options.wrapExtensionApi === undefined ? pi : options.wrapExtensionApi(pi), { ...options.fold, projectionSink: sink });
            },
          ]
        : []),
      ...(options.otherExtensions?.after ?? []),
    ],
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  });
  await resourceLoader.reload();
  const sessionDirectory = options.sessionDirectory ?? join(workDirectory, 'sessions');
  const sessionManager = options.sessionFile === undefined ? SessionManager.create(workDirectory, sessionDirectory) : SessionManager.open(options.sessionFile, sessionDirectory);
  const { session } = await createAgentSession({
    cwd: workDirectory,
    agentDir: agentDirectory,
    model: models.find(options.startModel?.provider ?? 'scripted', options.startModel?.id ?? 's1')!,
    ...models.sessionOptions,
    settingsManager,
    sessionManager,
    resourceLoader,
    customTools: [fetchBlobTool, ...(options.extraTools ?? [])],
  });
  await session.bindExtensions({
    uiContext: notifyingUi(notices),
    onError: (error: { event: string; error: string }) => errors.push(`${error.event}: ${error.error}`),
  } as never);
  const model = (id: string) => {
    const found = models.find('scripted', id);
    if (found === undefined) throw new Error(`no scripted model ${id}`);
    return found;
  };
  return { session, requests, ledger, registration, notices, errors, sessionManager, model };
}

type StreamSimple = NonNullable<ProviderConfig['streamSimple']>;
type AssistantMessageEventStream = ReturnType<typeof createAssistantMessageEventStream>;

/** Wait until Pi has finished any compaction or retry it started after a prompt. */
export async function settle(session: AgentSession): Promise<void> {
  for (let round = 0; round < 200; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (!session.isCompacting && !session.isStreaming) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      if (!session.isCompacting && !session.isStreaming) return;
    }
  }
}

/** Tool call ids of the last assistant message in a request that came back with results. */
export function lastToolResults(request: RecordedRequest): Message[] {
  const out: Message[] = [];
  for (let position = request.messages.length - 1; position >= 0; position -= 1) {
    const message = request.messages[position]!;
    if (message.role !== 'toolResult') break;
    out.unshift(message);
  }
  return out;
}

/**
 * Names of the tools a request offers. Pi 0.7x lists them in `context.tools`; from 0.8x on Pi
 * declares them in its `system` messages (`toolsAdded`, `toolsRemoved`), whose replay in order
 * is the tool set in force, and `context.tools` stays empty.
 */
function offeredToolNames(context: { readonly tools?: readonly { readonly name: string }[]; readonly messages: readonly unknown[] }): string[] {
  const listed = (context.tools ?? []).map((tool) => tool.name);
  if (listed.length > 0) return listed;
  const names = new Set<string>();
  for (const message of context.messages as readonly { role?: string; toolsAdded?: readonly { name: string }[]; toolsRemoved?: readonly { name: string }[] }[]) {
    if (message.role !== 'system') continue;
    for (const tool of message.toolsAdded ?? []) names.add(tool.name);
    for (const tool of message.toolsRemoved ?? []) names.delete(tool.name);
  }
  return [...names];
}

