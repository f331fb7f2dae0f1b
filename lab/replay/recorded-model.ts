import type { ToolDefinition } from '@mariozechner/pi-coding-agent';
import { Type } from 'typebox';
import type { ModelPolicy, ModelRequest, ScriptedReply } from '../provider/simulated-provider.ts';
import { itemsOfSummaryPrompt, standInSummary } from './needs/standin-summary.ts';
import type { ReplayGap, ReplayPlan, ReplayToolCall } from './replay-plan.ts';

/** The recorded model and tools of one arm's replay, and the gaps they met while running. */
export interface RecordedModel {
  /** Answers every agent request with the next recorded response, in order. */
  readonly policy: ModelPolicy;
  /** One tool per recorded tool name, returning the recorded result of each call. */
  readonly tools: readonly ToolDefinition[];
  /** Plan gaps plus those met while running (unknown calls, extra requests). */
  readonly gaps: ReplayGap[];
  /** Recorded responses given so far. */
  served(): number;
}

/** Options of a recorded model. */
export interface RecordedModelOptions {
  /** Answers a native compaction's summary request (the harness may answer those itself). */
  readonly summarize?: (request: ModelRequest) => string;
  /**
   * Called with the recorded time of the request after each answered one (ms after the first):
   * the replay moves its clock there, so the tools' results, the next request and its cache
   * all happen when they happened in the recording.
   */
  readonly nextRequestAt?: (offsetMs: number) => void;
  /** Each response's recorded request time, ms after the first (`replay-clock.ts`). */
  readonly offsetsMs?: readonly number[];
}

/**
 * The open-loop model of a replay: the policy ignores what it is sent and returns the
 * recording's next response; the tools return what the recorded tools returned. A tool call
 * is matched to its recorded result by its recorded id when the provider kept it, else by
 * position among the latest response's calls of that name (the provider numbers calls its
 * own way). A call with no recorded result answers so and is counted, never thrown.
 */
export function createRecordedModel(plan: ReplayPlan, options: RecordedModelOptions = {}): RecordedModel {
  const responses = plan.turns.flatMap((turn) => turn.responses);
  const gaps: ReplayGap[] = [...plan.gaps];
  let next = 0;
  let outstanding: ReplayToolCall[] = [];

  const policy: ModelPolicy = (request) => {
    if (request.purpose === 'summary') return { text: (options.summarize ?? deterministicSummary)(request) };
    const response = responses[next];
    outstanding = [];
    if (response === undefined) {
      gaps.push({
        kind: 'extra-request',
        detail: `agent request ${request.index} came after all ${responses.length} recorded responses were given`,
      });
      return { text: '(replay: the recording has no response left)' };
    }
    next += 1;
    const nextAt = options.offsetsMs?.[next];
    if (nextAt !== undefined) options.nextRequestAt?.(nextAt);
    outstanding = [...response.toolCalls];
    const reply: ScriptedReply =
      response.toolCalls.length > 0
        ? {
            text: response.text,
            toolCalls: response.toolCalls.map((call) => ({ name: call.name, arguments: call.arguments })),
          }
        : { text: response.text };
    return reply;
  };

  const claim = (toolCallId: string, name: string): ReplayToolCall | undefined => {
    const byId = outstanding.findIndex((call) => call.recordedId === toolCallId);
    const match = byId >= 0 ? byId : outstanding.findIndex((call) => call.name === name);
    if (match < 0) return undefined;
    return outstanding.splice(match, 1)[0];
  };

  const tools = plan.toolNames.map(
    (name): ToolDefinition => ({
      name,
      label: name,
      description: `Recorded tool ${name}: returns what the recorded session's tool returned for this call.`,
      parameters: Type.Object({}, { additionalProperties: true }),
      async execute(toolCallId) {
        const call = claim(toolCallId, name);
        const result = call === undefined ? undefined : plan.toolResults.get(call.recordedId);
        if (call === undefined || result === undefined) {
          const kind = call === undefined ? 'unknown-tool-call' : 'missing-tool-result';
          gaps.push({
            kind,
            detail: `${name} call ${call?.recordedId ?? toolCallId}: ${call === undefined ? 'not a call of the latest recorded response' : 'the recording holds no result for it'}`,
          });
          return {
            content: [
              { type: 'text', text: `(replay: no recorded result for ${name} call ${call?.recordedId ?? toolCallId})` },
            ],
            details: {},
          };
        }
        // Pi marks a tool result as an error when execute throws; a recorded error replays that way.
        if (result.isError) throw new Error(result.text);
        return { content: [{ type: 'text', text: result.text }], details: {} };
      },
    }),
  );

  return { policy, tools, gaps, served: () => next };
}

/**
 * The stated deterministic summarizer for native compaction in a replay (its rule:
 * `needs/standin-summary.ts`): the user's requests and the names the model itself worked
 * with, so Pi's own compaction code runs on a summary that does not depend on chance and
 * keeps at least what a real summary keeps.
 */
export function deterministicSummary(request: ModelRequest): string {
  const texts = request.messages.map((message) => ({
    role: message.role === 'user' ? ('user' as const) : ('assistant' as const),
    text:
      message.role === 'toolResult'
        ? ''
        : typeof message.content === 'string'
          ? message.content
          : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n'),
  }));
  const prompt = texts.map((item) => (item.role === 'user' ? item.text : '')).join('\n');
  // Pi serializes the conversation into one prompt; a host that sends the messages themselves is read as they are.
  const { items, previousSummary } = prompt.includes('<conversation>')
    ? itemsOfSummaryPrompt(prompt)
    : { items: texts };
  return standInSummary(items, previousSummary);
}
