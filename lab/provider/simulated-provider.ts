import type { Message } from '@mariozechner/pi-ai';
import {
  type AssistantMessage,
  type AssistantMessageEventStream,
  type Context,
  createAssistantMessageEventStream,
  type Model,
  type SimpleStreamOptions,
  type TextContent,
  type Tool,
  type ToolCall,
} from '@mariozechner/pi-ai';
import type { PriceList } from '../../ports/cost-model.port.ts';
import type { ArmName, RequestRow, WindowEvent } from '../report/lab-records.ts';
import { type WindowPart, windowParts } from '../report/window-parts.ts';
import { type PrefixCacheRules, PrefixCacheSimulator, type PromptMessage } from './prefix-cache-simulator.ts';
import { providerView } from './provider-view.ts';
import { priceBill, scaledCacheBill } from './request-bill.ts';
import type { WireTokenizer } from './wire-tokens.ts';

/** What the scripted model is asked: exactly what a provider would receive, plus why. */
export interface ModelRequest {
  /** 0-based order of the request within the arm. */
  readonly index: number;
  /** `agent` for the agent loop, `summary` for a native compaction's summary call. */
  readonly purpose: 'agent' | 'summary';
  readonly systemPrompt: string;
  readonly tools: readonly Tool[];
  readonly messages: readonly Message[];
  /** Tokens of the whole serialized prompt. */
  readonly promptTokens: number;
}

/** The scripted model's answer. A reply with tool calls ends in `toolUse`, else `stop`. */
export interface ScriptedReply {
  readonly text?: string;
  readonly toolCalls?: readonly { readonly name: string; readonly arguments: Record<string, unknown> }[];
  /** Label the request's row: spent on a probe (answering), or on recovery (it carries text read back). */
  readonly purpose?: 'probe' | 'recovery';
}

/** The model: a pure function of what it was sent (closed loop). */
export type ModelPolicy = (request: ModelRequest) => ScriptedReply;

/** Where the provider learns whether a rewrite was the runtime's own doing. */
export interface RewriteAttribution {
  /** Causes the fold runtime recorded for the projection about to be sent (empty: pure append). */
  takeFoldCauses(): readonly string[] | undefined;
  /** Native compactions finished so far. */
  compactionsDone(): number;
  /** True while Pi is compacting (its summary calls). */
  isCompacting(): boolean;
  /** Milliseconds the runtime's hooks spent before this request. */
  takeHookMs(): number;
  /** The part of each message in the projection about to be sent, where pi-fold made one (`window-parts.ts`). */
  takeMessageParts?(): readonly WindowPart[] | undefined;
  /** The transcript entry each message of that projection shows, raw or spilled (undefined for pi-fold's own messages). */
  takeMessageEntryIds?(): readonly (string | undefined)[] | undefined;
  /**
   * The chars the runtime's raw floor counts for each entry of that projection, where the
   * host's adapter counts other than Pi's estimate (the AI SDK adapter counts the window form).
   */
  takeMessageReadChars?(): readonly (number | undefined)[] | undefined;
}

/** One agent prompt as the provider billed it: what the cost bound (lab/bound) rebuilds a session from. */
export interface BilledPrompt {
  /** 0-based among the agent requests billed. */
  readonly agentIndex: number;
  /** The wire elements: system prompt, tool schemas, then one per message. */
  readonly prompt: readonly PromptMessage[];
  /** The messages behind `prompt`'s elements past the first two, as the provider received them. */
  readonly messages: readonly Message[];
  /** The transcript entry each message shows, where the runtime said (`RewriteAttribution.takeMessageEntryIds`). */
  readonly entryIds: readonly (string | undefined)[] | undefined;
  /** What the runtime's floor counts of each message's entry, where the arm said (`RewriteAttribution.takeMessageReadChars`). */
  readonly readChars?: readonly (number | undefined)[];
  /** The cache's clock at this request. */
  readonly nowSeconds: number;
  /** True when the cache was emptied before this request (a loss that kept nothing, `cacheLosses`). */
  readonly cold: boolean;
  /** Where the provider lost its cache before this request (`cacheLosses`): the lab tokens of prefix it still held. */
  readonly keptTokens?: number;
  /** Tokens of the reply, as reported (scaled). */
  readonly output: number;
}

export interface SimulatedProviderOptions {
  readonly arm: ArmName;
  readonly tokenizer: WireTokenizer;
  readonly priceList: PriceList;
  readonly cacheRules: PrefixCacheRules;
  /** Prompts above this many tokens are refused as a context overflow. */
  readonly capTokens: number;
  /** Simulated seconds between requests (the cache's TTL clock). @default 15 */
  readonly secondsPerRequest?: number;
  /** The cache's clock in seconds at a request, instead of `secondsPerRequest` (a replay's recorded times). */
  readonly clockSeconds?: () => number;
  /**
   * Agent requests (0-based, counting those billed) at which the provider has lost its cache
   * whatever its age, each with the lab tokens of prefix it still holds (0: none): where a
   * replayed recording's own usage shows its provider lost it (lab/replay/recorded-cache-losses.ts).
   * @default none
   */
  readonly cacheLosses?: ReadonlyMap<number, number>;
  /**
   * Tokens the provider reports per lab token: a replay's recorder counted the same text with
   * its own tokenizer (lab/replay/token-scale.ts). Every count it reports, bills and caps is
   * scaled; what is cached and compared stays the lab's tokens. @default 1
   */
  readonly tokenScale?: number;
  readonly policy: ModelPolicy;
  readonly attribution: RewriteAttribution;
  readonly onRow?: (row: RequestRow) => void;
  /** Called with every agent prompt billed (not refused, not a summary call). */
  readonly onPrompt?: (billed: BilledPrompt) => void;
}

/** The refusal text: OpenAI's wording, which pi-ai's overflow detection recognises. */
export function overflowMessage(promptTokens: number, capTokens: number): string {
  return `Your input exceeds the context window of this model (${promptTokens} tokens > ${capTokens} maximum)`;
}

/**
 * A provider that bills like a real one: every prompt is tokenized in wire order, served
 * from a positional prefix cache, priced per request, and refused above the cap with an
 * error Pi treats as a context overflow. Each request is classified as a pure append of
 * the previous agent prompt or a rewrite, attributed when the runtime says it caused one.
 */
export class SimulatedProvider {
  readonly rows: RequestRow[] = [];
  private readonly cache: PrefixCacheSimulator;
  /** Agent requests billed so far: the position `cacheLosses` counts in. */
  private billedAgentRequests = 0;
  private previousAgentPrompt: readonly PromptMessage[] | undefined;
  private compactionsAtPrevious = 0;

  constructor(private readonly options: SimulatedProviderOptions) {
    this.cache = new PrefixCacheSimulator(options.cacheRules);
  }

  /** The `streamSimple` to register with `modelRegistry.registerProvider`. */
  readonly streamSimple = (
    model: Model<string>,
    context: Context,
    options?: SimpleStreamOptions,
  ): AssistantMessageEventStream => {
    const stream = createAssistantMessageEventStream();
    // Like pi-ai's real providers, hand the request body to `onPayload` (Pi's
    // before_provider_request) first: extensions that watch it see the lab's requests too.
    const payload = { model: model.id, system: context.systemPrompt, messages: context.messages, tools: context.tools };
    // Pi reports a failing hook itself; the request goes out either way, as a real provider's would.
    const answer = () => this.answer(model, context, stream);
    void Promise.resolve(options?.onPayload?.(payload, model)).then(answer, answer);
    return stream;
  };

  private answer(model: Model<string>, context: Context, stream: AssistantMessageEventStream): void {
    const message = this.respond(model, context);
    queueMicrotask(() => {
      if (message.stopReason === 'error') {
        stream.push({ type: 'error', reason: 'error', error: message });
      } else {
        stream.push({ type: 'start', partial: message });
        stream.push({ type: 'done', reason: message.stopReason as 'stop' | 'toolUse', message });
      }
      stream.end(message);
    });
  }

  private respond(model: Model<string>, hostContext: Context): AssistantMessage {
    const context = providerView(hostContext);
    const { tokenizer, capTokens, priceList, attribution } = this.options;
    const index = this.rows.length;
    const purpose = attribution.isCompacting() ? 'summary' : 'agent';
    const hookMs = purpose === 'agent' ? attribution.takeHookMs() : 0;
    const foldCauses = purpose === 'agent' ? attribution.takeFoldCauses() : undefined;
    const messageParts = purpose === 'agent' ? attribution.takeMessageParts?.() : undefined;
    const entryIds = purpose === 'agent' ? attribution.takeMessageEntryIds?.() : undefined;
    const readChars = purpose === 'agent' ? attribution.takeMessageReadChars?.() : undefined;
    const prompt = tokenizer.prompt(context);
    const scale = this.options.tokenScale ?? 1;
    const scaled = (tokens: number): number => (scale === 1 ? tokens : Math.round(tokens * scale));
    const promptTokens = prompt.reduce((sum, part) => sum + scaled(part.tokens.length), 0);
    const event = purpose === 'summary' ? 'compaction' : this.classify(prompt, foldCauses);
    const base = { api: model.api, provider: model.provider, model: model.id, timestamp: Date.now() };
    const zero = {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    };
    const nowSeconds = this.options.clockSeconds?.() ?? index * (this.options.secondsPerRequest ?? 15);
    const rowBase = { arm: this.options.arm, index, promptTokens, event, hookMs };
    if (promptTokens > capTokens) {
      this.record({
        ...rowBase,
        cacheRead: 0,
        freshInput: 0,
        output: 0,
        costUsd: 0,
        longContext: false,
        rejected: true,
        purpose,
      });
      return {
        ...base,
        role: 'assistant',
        content: [],
        usage: zero,
        stopReason: 'error',
        errorMessage: overflowMessage(promptTokens, capTokens),
      };
    }
    const agentIndex = this.billedAgentRequests;
    const keptTokens = purpose === 'agent' ? this.options.cacheLosses?.get(agentIndex) : undefined;
    if (keptTokens !== undefined) this.cache.keepPrefix(keptTokens, nowSeconds);
    const cold = keptTokens === 0;
    if (purpose === 'agent') this.billedAgentRequests += 1;
    const bill = scaledCacheBill(this.cache, prompt, nowSeconds, scale);
    const reply = this.options.policy({
      index,
      purpose,
      systemPrompt: context.systemPrompt ?? '',
      tools: context.tools ?? [],
      messages: context.messages,
      promptTokens,
    });
    const content: (TextContent | ToolCall)[] = [];
    if (reply.text !== undefined && reply.text.length > 0) content.push({ type: 'text', text: reply.text });
    for (const [position, call] of (reply.toolCalls ?? []).entries()) {
      content.push({ type: 'toolCall', id: `call_${index}_${position}`, name: call.name, arguments: call.arguments });
    }
    const output = scaled(
      tokenizer.count(
        content
          .map((part) => (part.type === 'text' ? part.text : `${part.name}${JSON.stringify(part.arguments)}`))
          .join('\n'),
      ),
    );
    const { usage, costUsd } = priceBill(priceList, bill, output);
    const writes = usage.cacheWrite;
    const longContext = priceList.longContext !== undefined && promptTokens > priceList.longContext.aboveTokens;
    const window = windowParts(bill.partTokens, messageParts);
    if (purpose === 'agent')
      this.options.onPrompt?.({
        agentIndex,
        prompt,
        messages: context.messages,
        entryIds,
        ...(readChars === undefined ? {} : { readChars }),
        nowSeconds,
        cold,
        ...(keptTokens === undefined ? {} : { keptTokens }),
        output,
      });
    this.record({
      ...rowBase,
      cacheRead: bill.cacheRead,
      freshInput: bill.fresh,
      ...(writes > 0 ? { cacheWrite: writes } : {}),
      output,
      costUsd,
      longContext,
      rejected: false,
      purpose: reply.purpose ?? purpose,
      window,
    });
    return {
      ...base,
      role: 'assistant',
      content,
      usage: {
        ...usage,
        totalTokens: promptTokens + output,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: costUsd },
      },
      stopReason: (reply.toolCalls?.length ?? 0) > 0 ? 'toolUse' : 'stop',
    };
  }

  // A pure append keeps every earlier wire element byte-identical and only adds after them.
  private classify(prompt: readonly PromptMessage[], foldCauses: readonly string[] | undefined): WindowEvent {
    const previous = this.previousAgentPrompt;
    const compactions = this.options.attribution.compactionsDone();
    const compactedSince = compactions > this.compactionsAtPrevious;
    this.previousAgentPrompt = prompt;
    this.compactionsAtPrevious = compactions;
    if (previous === undefined) return 'append';
    const appended =
      previous.length <= prompt.length && previous.every((part, position) => part.digest === prompt[position]!.digest);
    if (appended) return 'append';
    if (foldCauses !== undefined && foldCauses.length > 0) return 'commit';
    if (compactedSince) return 'compaction';
    return 'rewrite-unattributed';
  }

  private record(row: RequestRow): void {
    this.rows.push(row);
    this.options.onRow?.(row);
  }
}
