import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import type { RecordedSession } from '../transcripts/recorded-session.ts';

/** A recorded tool call the replayed model makes again, under its recorded id and name. */
export interface ReplayToolCall {
  readonly recordedId: string;
  readonly name: string;
  readonly arguments: Record<string, unknown>;
}

/** One recorded response, as the replayed model will give it. */
export interface ReplayResponse {
  /** Order among all responses of the recording (0-based). */
  readonly order: number;
  readonly entryIndex: number;
  readonly text: string;
  /** The calls re-issued: empty when the recording did not continue the loop after this response. */
  readonly toolCalls: readonly ReplayToolCall[];
  /** When the recorder wrote it (ms since the epoch), when it wrote a time. */
  readonly time?: number;
}

/** One user turn: a prompt, then the responses the agent loop asks for until one makes no tool call. */
export interface ReplayTurn {
  readonly prompt: string;
  /** True when the recording had no user message here and the replay had to supply one. */
  readonly synthetic: boolean;
  readonly responses: readonly ReplayResponse[];
}

/** A place where the recording cannot be replayed exactly; counted and reported, never fatal. */
export interface ReplayGap {
  readonly kind:
    | 'interrupted-tool-calls'
    | 'response-without-prompt'
    | 'missing-tool-result'
    | 'unknown-tool-call'
    | 'extra-request';
  readonly detail: string;
  /** The recorded response it concerns, when the plan knows it. */
  readonly response?: number;
}

/** What a recorded tool returned, by recorded tool-call id. */
export interface RecordedToolResult {
  readonly text: string;
  readonly isError: boolean;
}

/** A recorded session laid out as the user turns and responses a replay re-issues. */
export interface ReplayPlan {
  readonly turns: readonly ReplayTurn[];
  /** Responses over all turns: the agent requests an arm that adds no calls must make. */
  readonly responseCount: number;
  readonly toolResults: ReadonlyMap<string, RecordedToolResult>;
  /** Every tool name the recorded responses call, sorted. */
  readonly toolNames: readonly string[];
  /** Gaps known before running (the tool registry counts the rest as they happen). */
  readonly gaps: readonly ReplayGap[];
  /** User messages joined into the prompt before them (Pi takes one prompt per turn). */
  readonly mergedUserMessages: number;
}

/** The prompt of a turn the recording began without a user message (after an error or a retry). */
export const SYNTHETIC_PROMPT = '(replay: the recorded session continued here without a user message)';

/**
 * Lay a recording out for an open-loop replay. Pi's agent loop calls the model again after
 * every tool result and stops at a response without tool calls, so the plan re-issues a
 * response's tool calls only when the recording itself went on to another response without
 * a user message between (otherwise the loop would ask for a request the recording never
 * made). Each dropped call and each supplied prompt is a counted gap, so the number of
 * agent requests always equals the number of recorded responses.
 */
export function buildReplayPlan(session: RecordedSession): ReplayPlan {
  const entries = session.entries;
  const times = new Map(
    session.responses.flatMap((response) =>
      response.time === undefined ? [] : [[response.entryIndex, response.time] as const],
    ),
  );
  const toolResults = new Map<string, RecordedToolResult>();
  for (const entry of entries)
    if (entry.role === 'toolResult' && entry.toolCallId !== undefined)
      toolResults.set(entry.toolCallId, { text: entry.text, isError: recordedError(entry) });
  const turns: { prompt: string; synthetic: boolean; responses: ReplayResponse[] }[] = [];
  const gaps: ReplayGap[] = [];
  const toolNames = new Set<string>();
  let pendingUser: string[] = [];
  let mergedUserMessages = 0;
  let loopContinues = false;
  let order = 0;
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index]!;
    if (entry.role === 'user') {
      pendingUser.push(entry.text.trim().length > 0 ? entry.text : '(empty user message)');
      continue;
    }
    if (entry.role !== 'assistant') continue;
    if (pendingUser.length > 0) {
      mergedUserMessages += pendingUser.length - 1;
      turns.push({ prompt: pendingUser.join('\n\n'), synthetic: false, responses: [] });
      pendingUser = [];
    } else if (!loopContinues || turns.length === 0) {
      gaps.push({
        kind: 'response-without-prompt',
        detail: `response ${order} (entry ${entry.id}) follows no user message or tool call; replayed after a supplied prompt`,
        response: order,
      });
      turns.push({ prompt: SYNTHETIC_PROMPT, synthetic: true, responses: [] });
    }
    const recordedCalls = entry.toolCalls ?? [];
    const continues = recordedCalls.length > 0 && recordingContinuesLoop(entries, index);
    if (recordedCalls.length > 0 && !continues) {
      gaps.push({
        kind: 'interrupted-tool-calls',
        detail: `response ${order} (entry ${entry.id}): ${recordedCalls.length} tool call(s) not re-issued; the recording continues with a user message or ends`,
        response: order,
      });
    }
    const toolCalls = continues
      ? recordedCalls.map((call) => ({
          recordedId: call.id,
          name: call.name,
          arguments: parseArguments(call.argumentsJson),
        }))
      : [];
    for (const call of toolCalls) toolNames.add(call.name);
    const time = times.get(index);
    turns.at(-1)!.responses.push({
      order,
      entryIndex: index,
      text: entry.text,
      toolCalls,
      ...(time === undefined ? {} : { time }),
    });
    loopContinues = continues;
    order += 1;
  }
  return { turns, responseCount: order, toolResults, toolNames: [...toolNames].sort(), gaps, mergedUserMessages };
}

// The loop goes on after a response when the next response comes before any user message.
function recordingContinuesLoop(entries: readonly TranscriptEntry[], assistantIndex: number): boolean {
  for (let index = assistantIndex + 1; index < entries.length; index += 1) {
    const role = entries[index]!.role;
    if (role === 'assistant') return true;
    if (role === 'user') return false;
  }
  return false;
}

function parseArguments(argumentsJson: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(argumentsJson);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : { value };
  } catch {
    return { unparsedArguments: argumentsJson };
  }
}

// Pi writes `isError`, Claude Code `is_error`; the converters keep the message's own JSON as bytes.
function recordedError(entry: TranscriptEntry): boolean {
  try {
    const message = JSON.parse(entry.bytes) as Record<string, unknown>;
    return message.isError === true || message.is_error === true;
  } catch {
    return false;
  }
}

/**
 * The plan cut to its first `maxResponses` responses (a long recording replayed in part: Pi
 * copies a session's whole history before every request, so a replay's time grows with the
 * square of its length). A cut inside a turn ends that turn at the cut: the last kept
 * response re-issues no calls, so the loop asks for nothing the plan no longer holds. Tool
 * results no kept response calls are let go.
 */
export function limitReplayPlan(plan: ReplayPlan, maxResponses: number): ReplayPlan {
  if (plan.responseCount <= maxResponses) return plan;
  const turns: ReplayTurn[] = [];
  let kept = 0;
  for (const turn of plan.turns) {
    if (kept >= maxResponses) break;
    const responses = turn.responses.slice(0, maxResponses - kept);
    kept += responses.length;
    const cut = responses.length < turn.responses.length;
    if (cut) responses[responses.length - 1] = { ...responses[responses.length - 1]!, toolCalls: [] };
    turns.push({ ...turn, responses });
  }
  const called = new Set(
    turns.flatMap((turn) => turn.responses.flatMap((response) => response.toolCalls.map((call) => call.recordedId))),
  );
  const toolResults = new Map([...plan.toolResults].filter(([callId]) => called.has(callId)));
  const toolNames = [
    ...new Set(
      turns.flatMap((turn) => turn.responses.flatMap((response) => response.toolCalls.map((call) => call.name))),
    ),
  ].sort();
  const gaps = plan.gaps.filter((gap) => gap.response === undefined || gap.response < kept);
  return { ...plan, turns, responseCount: kept, toolResults, toolNames, gaps };
}
