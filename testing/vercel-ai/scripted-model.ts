import { simulateReadableStream, tool } from 'ai';
import * as aiTest from 'ai/test';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { canonicalBytes } from '../../adapters/hosts/vercel-ai/canonical-message.ts';
import type { ModelPrompt, ModelUsage } from '../../adapters/hosts/vercel-ai/usage-middleware.ts';
import { seededRandom, sourceLikeText } from '../synthetic-session.ts';

/** What the scripted model does on one call: call tools, or answer with text and stop. */
export interface ScriptedStep {
  readonly toolCalls?: readonly { readonly toolName: string; readonly input: unknown }[];
  readonly text?: string;
}

export type Script = (context: { readonly call: number; readonly prompt: ModelPrompt }) => ScriptedStep;

/** The wire form a provider would receive: one canonical line per prompt message. */
export function serializePrompt(prompt: ModelPrompt): string {
  return prompt.map((message) => `${canonicalBytes(message)}\n`).join('');
}

/** The mock provider's tokenizer: a little denser than the engine's default chars/4. */
export function promptTokens(prompt: ModelPrompt): number {
  return Math.ceil(serializePrompt(prompt).length / 3.6) + 50;
}

type CallOptions = Parameters<MockLanguageModelV3['doGenerate']>[0];

/**
 * The mock model of the SDK's own spec: V3 under ai@6, V4 under ai@7 (which still wraps V3
 * models, but its providers are V4). The two take the same options and return the same
 * shapes for everything scripted here; the root's ai@6 types name only the V3 one.
 */
const MockLanguageModel: typeof MockLanguageModelV3 =
  (aiTest as unknown as { MockLanguageModelV4?: typeof MockLanguageModelV3 }).MockLanguageModelV4 ??
  MockLanguageModelV3;

/**
 * A MockLanguageModelV3 driven by a script, reporting usage like a provider with a prefix
 * cache: the whole prompt as input, and the previous prompt's tokens as cache read when the
 * new prompt starts with the previous prompt's exact bytes.
 */
export class ScriptedModel {
  readonly model: MockLanguageModelV3;
  /** Every prompt received, in order, with the usage reported for it and the names of the tools the call offered. */
  readonly calls: { prompt: ModelPrompt; tokens: number; cacheRead: number; toolNames: readonly string[] }[] = [];
  private previousSerialized = '';
  private previousTokens = 0;

  /**
   * @param options.cheapUsage count tokens from one native JSON.stringify and report no cache
   * reads, for benchmarks where the mock's own serialisation would dominate the garbage.
   * @param options.modelId the model's id (a loop that switches models uses two). @default the mock's own
   * @param options.callIdPrefix prefix of tool call ids, distinct per model of one loop. @default 'call_'
   */
  constructor(
    private readonly script: Script,
    private readonly options: {
      readonly cheapUsage?: boolean;
      readonly modelId?: string;
      readonly callIdPrefix?: string;
    } = {},
  ) {
    const callId = (call: number, position: number) => `${options.callIdPrefix ?? 'call_'}${call}_${position}`;
    this.model = new MockLanguageModel({
      ...(options.modelId === undefined ? {} : { modelId: options.modelId }),
      doGenerate: async (options) => {
        const { step, usage, call } = this.respond(options);
        return {
          content:
            step.text !== undefined
              ? [{ type: 'text', text: step.text }]
              : (step.toolCalls ?? []).map((toolCall, position) => ({
                  type: 'tool-call' as const,
                  toolCallId: callId(call, position),
                  toolName: toolCall.toolName,
                  input: JSON.stringify(toolCall.input),
                })),
          finishReason: { unified: step.text !== undefined ? 'stop' : 'tool-calls', raw: undefined },
          usage,
          warnings: [],
        };
      },
      doStream: async (options) => {
        const { step, usage, call } = this.respond(options);
        const parts: unknown[] = [{ type: 'stream-start', warnings: [] }];
        if (step.text !== undefined)
          parts.push(
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: step.text },
            { type: 'text-end', id: 't' },
          );
        for (const [position, toolCall] of (step.toolCalls ?? []).entries()) {
          parts.push({
            type: 'tool-call',
            toolCallId: callId(call, position),
            toolName: toolCall.toolName,
            input: JSON.stringify(toolCall.input),
          });
        }
        parts.push({
          type: 'finish',
          finishReason: { unified: step.text !== undefined ? 'stop' : 'tool-calls', raw: undefined },
          usage,
        });
        return {
          stream: simulateReadableStream({ chunks: parts as never[], initialDelayInMs: null, chunkDelayInMs: null }),
        };
      },
    });
  }

  private respond(options: CallOptions): { step: ScriptedStep; usage: ModelUsage; call: number } {
    const call = this.calls.length;
    const cheap = this.options.cheapUsage === true;
    const serialized = cheap ? '' : serializePrompt(options.prompt);
    const tokens = cheap ? Math.ceil(JSON.stringify(options.prompt).length / 3.6) + 50 : promptTokens(options.prompt);
    const cacheRead =
      this.previousSerialized.length > 0 && serialized.startsWith(this.previousSerialized) ? this.previousTokens : 0;
    this.calls.push({
      prompt: options.prompt,
      tokens,
      cacheRead,
      toolNames: (options.tools ?? []).map((tool) => tool.name),
    });
    this.previousSerialized = serialized;
    this.previousTokens = tokens;
    const usage: ModelUsage = {
      inputTokens: { total: tokens, noCache: tokens - cacheRead, cacheRead, cacheWrite: 0 },
      outputTokens: { total: 40, text: 40, reasoning: 0 },
    };
    return { step: this.script({ call, prompt: options.prompt }), usage, call };
  }
}

/** Deterministic file text of 9k–14k chars, the same for the same path. */
export function fileText(path: string): string {
  let seed = 7;
  for (const char of path) seed = (seed * 31 + char.charCodeAt(0)) >>> 0;
  const random = seededRandom(seed);
  return sourceLikeText(random, 9000 + Math.floor(random() * 5000), path);
}

/** The large-result tool the loops call. */
export const readFileTool = tool({
  description: 'Read a file of the repository',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => fileText(path),
});

/** A script that reads one file per step for `steps` calls, then answers; `override` may take any call. */
export function readLoop(steps: number, override?: Script): Script {
  return (context) => {
    const taken = override?.(context);
    if (taken !== undefined && (taken.text !== undefined || taken.toolCalls !== undefined)) return taken;
    if (context.call >= steps) return { text: `Read ${steps} files; done.` };
    return { toolCalls: [{ toolName: 'read_file', input: { path: `src/module_${context.call}.ts` } }] };
  };
}
