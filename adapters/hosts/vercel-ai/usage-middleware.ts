import type { LanguageModelMiddleware } from 'ai';
import type { FoldRuntime } from '../../../core/fold-runtime.ts';
import type { RequestUsage } from '../../../ports/cost-model.port.ts';
import { MIDDLEWARE_SPECIFICATION } from './ai-sdk-version.ts';

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type GenerateResult = Awaited<ReturnType<NonNullable<LanguageModelMiddleware['wrapGenerate']>>>;

/** The exact prompt of one model call, as the provider received it. */
export type ModelPrompt = CallOptions['prompt'];
/** Usage as a V3 model reports it. */
export type ModelUsage = GenerateResult['usage'];

/** One model call seen by the middleware. */
export interface PromptRecord {
  readonly type: 'generate' | 'stream';
  readonly prompt: ModelPrompt;
  /** The ledger request this prompt was projected as (undefined when prepareStep did not run). */
  readonly request: number | undefined;
}

/** Provider usage in the engine's terms: input + cache read + cache write = the whole prompt. */
export function requestUsage(usage: ModelUsage): RequestUsage | undefined {
  const total = usage.inputTokens.total;
  if (total === undefined) return undefined;
  const cacheRead = usage.inputTokens.cacheRead ?? 0;
  const cacheWrite = usage.inputTokens.cacheWrite ?? 0;
  return {
    input: Math.max(0, total - cacheRead - cacheWrite),
    cacheRead,
    cacheWrite,
    output: usage.outputTokens.total ?? 0,
  };
}

export interface UsageMiddlewareOptions {
  readonly runtime: FoldRuntime;
  /** Called with every final prompt (tests, attribution). */
  readonly onPrompt?: (record: PromptRecord) => void;
  /** Told the chars the host adds around the messages (system text, tool schemas). */
  readonly onOverhead: (chars: number) => void;
  /**
   * Under `toolOffer: 'when-needed'`: the fold tool's name, and whether this call should offer
   * it. While it should not, the tool is left out of the call's tool list (core/settings/tool-offer.ts).
   */
  readonly foldTool?: { readonly name: string; readonly offered: () => boolean };
}

/**
 * The call without the fold tool, while it is not to be offered. A call whose tool choice
 * names the tool keeps it (the host asked for it); a call left with no tools sends none.
 */
function withoutUnneededTool(
  params: CallOptions,
  foldTool: NonNullable<UsageMiddlewareOptions['foldTool']>,
): CallOptions {
  const tools = params.tools;
  if (tools === undefined || foldTool.offered()) return params;
  const choice = params.toolChoice;
  if (choice?.type === 'tool' && choice.toolName === foldTool.name) return params;
  const kept = tools.filter((tool) => tool.name !== foldTool.name);
  if (kept.length === tools.length) return params;
  if (kept.length > 0) return { ...params, tools: kept };
  const { tools: _tools, toolChoice: _choice, ...rest } = params;
  return rest as CallOptions;
}

/**
 * A middleware (spec V3 under ai@6, V4 under ai@7: the parts it reads are the same) that sees each
 * call's final prompt and reports the provider's usage to
 * the runtime, which anchors occupancy on it. It never changes the prompt: the projection
 * is decided in prepareStep, where the step's whole history is known. Under
 * `toolOffer: 'when-needed'` it leaves the fold tool out of the call's tools until it is needed.
 */
export function createUsageMiddleware(options: UsageMiddlewareOptions): LanguageModelMiddleware {
  const { runtime } = options;
  let toolsSeen: unknown;
  let toolChars = 0;
  const record = (usage: ModelUsage) => {
    const converted = requestUsage(usage);
    if (converted !== undefined) runtime.recordUsage(converted);
  };
  return {
    // The root compiles against ai@6's types, where only 'v3' is spelled; ai@7 runs 'v4'.
    specificationVersion: MIDDLEWARE_SPECIFICATION as 'v3',
    transformParams: async ({ type, params: given }) => {
      const params = options.foldTool === undefined ? given : withoutUnneededTool(given, options.foldTool);
      // Tool schemas rarely change within a loop; measure them once per tools array.
      if (params.tools !== toolsSeen) {
        toolsSeen = params.tools;
        toolChars = params.tools === undefined ? 0 : JSON.stringify(params.tools).length;
      }
      let systemChars = 0;
      for (const message of params.prompt) if (message.role === 'system') systemChars += message.content.length;
      options.onOverhead(systemChars + toolChars);
      options.onPrompt?.({
        type,
        prompt: params.prompt,
        request: runtime.view.ledger[runtime.view.ledger.length - 1]?.request,
      });
      return params;
    },
    wrapGenerate: async ({ doGenerate }) => {
      const result = await doGenerate();
      record(result.usage);
      return result;
    },
    wrapStream: async ({ doStream }) => {
      const { stream, ...rest } = await doStream();
      const watched = stream.pipeThrough(
        new TransformStream({
          transform(part, controller) {
            if (part.type === 'finish') record(part.usage);
            controller.enqueue(part);
          },
        }),
      );
      return { ...rest, stream: watched };
    },
  };
}
