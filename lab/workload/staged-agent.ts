import type { Message } from '@mariozechner/pi-ai';
import type { ModelPolicy, ModelRequest, ScriptedReply } from '../provider/simulated-provider.ts';
import type { RecoveryCalls } from '../report/lab-records.ts';
import { summarizeForCompaction } from './lab-summarizer.ts';
import type { AssignmentPlan } from './stage-plan.ts';
import { ANSWER_TOOL, PAYLOAD, STAGE_TOOL } from './stage-tools.ts';
import {
  FOLD_TOOL,
  foldMentioning,
  READ_TOOL,
  readCallId,
  readMentions,
  resultMention,
  searchHitShowing,
  visibleFiles,
  visibleLine,
} from './window-files.ts';

export { FOLD_TOOL } from './window-files.ts';
/** Recovery calls the agent makes in one batch at most (a small batch keeps re-reads from flooding the window). */
export const RECOVERY_BATCH = 3;
/** Peeks and searches tried per question before falling back to reading again. */
const FOLD_STEPS_PER_NEED = 5;
/** A file recovered from a fold is peeked whole: its unit's exact source, up to the runtime's largest peek. */
const FILE_PEEK_BYTES = 200_000;

/** How the agent answered, kept outside the window for scoring. */
export interface AgentLog {
  /** Question and check ids answered right after at least one recovery read. */
  readonly recovered: Set<string>;
  readonly recoveryReads: { peeks: number; searches: number; fileRereads: number; stageRereads: number };
}

type ToolCallRequest = { name: string; arguments: Record<string, unknown> };

/** Something the agent must answer: a probe about a stage's marker, or a working-set check on a file's line. */
type Need =
  | { readonly kind: 'probe'; readonly id: string; readonly stage: number }
  | { readonly kind: 'check'; readonly id: string; readonly path: string; readonly line: number };

interface OpenNeed {
  readonly need: Need;
  /** Folds already peeked for it. */
  readonly peeked: Set<string>;
  /** Search patterns already sent for it. */
  readonly searched: Set<string>;
  reread: boolean;
  attempts: number;
  /** The call that read the file, once seen: the agent keeps it, as it would note it, when the hit that showed it folds away. */
  callId?: string;
}

/**
 * The closed-loop scripted agent of the staged assignment. Deterministic, and it answers
 * only from what its window shows:
 * - a stage payload → read the files it names, in one batch;
 * - read results → a one-line note per file, then every open need answered from the window:
 *   a probe from the marker's text, a working-set check from the named line of a file the
 *   window still shows (a raw read result or a peeked fold's exact source);
 * - what is not visible is recovered the cheapest way the runtime allows, at most 3 calls a
 *   batch and `FOLD_STEPS_PER_NEED` fold steps a need: a fold arm peeks the fold whose brief
 *   names it; for a file whose brief is not in view it searches the read's arguments, then
 *   the result's call id, and peeks the result where it starts; any arm falls back to reading
 *   the file again or re-delivering the stage; "unknown" when nothing recovers it;
 * - nothing open → the next stage; after the final block is answered, a closing text.
 * The request that carries recovered text is labelled `recovery`: a window that still showed
 * it would not have needed that request. Control state (the next stage, open ids) is the
 * agent's plan outside the window; answers never are. Summary calls get the stated summarizer.
 */
export function createStagedAgent(plan: AssignmentPlan): { policy: ModelPolicy; log: AgentLog } {
  const agent = new StagedAgent(plan);
  return { policy: (request) => agent.reply(request), log: agent.log };
}

/** The agent's plan, kept outside the window: stages absorbed and to come, and the needs still open. */
class StagedAgent {
  readonly log: AgentLog = {
    recovered: new Set(),
    recoveryReads: { peeks: 0, searches: 0, fileRereads: 0, stageRereads: 0 },
  };
  private readonly lastStage: number;
  private readonly absorbed = new Set<number>();
  private readonly open = new Map<string, OpenNeed>();
  private nextStage = 1;
  private noteStage = 0;
  private finalDelivered = false;
  private awaitingRecovery = false;

  constructor(private readonly plan: AssignmentPlan) {
    this.lastStage = plan.preset.stages + 1;
  }

  reply(request: ModelRequest): ScriptedReply {
    if (request.purpose === 'summary') return { text: summarizeForCompaction(request.messages) };
    const recovering = this.awaitingRecovery;
    this.awaitingRecovery = false;
    const { toRead, reads } = this.absorbBatch(request.messages, recovering);
    if (toRead.length > 0) return { toolCalls: toRead.map((path) => ({ name: READ_TOOL, arguments: { path } })) };
    const note = reads.length > 0 ? noteFor(this.noteStage, reads) : undefined;
    const { answers, recoveries } = this.answerFromWindow(request);
    const toolCalls = [
      ...(Object.keys(answers).length > 0 ? [{ name: ANSWER_TOOL, arguments: { answers } }] : []),
      ...recoveries,
    ];
    if (this.open.size === 0 && recoveries.length === 0 && !this.finalDelivered && this.nextStage <= this.lastStage) {
      toolCalls.push({ name: STAGE_TOOL, arguments: { stage: this.nextStage } });
      this.nextStage += 1;
    }
    this.awaitingRecovery = recoveries.length > 0;
    return turnReply({
      recovering,
      probing: Object.keys(answers).length > 0 || recoveries.length > 0,
      note,
      toolCalls,
      closing: `Assignment complete: ${this.plan.preset.stages} stages delivered, every question answered.`,
    });
  }

  /** The newest batch's results: stage payloads absorbed (files to read, needs opened) and the file reads to note. */
  private absorbBatch(
    messages: readonly Message[],
    recovering: boolean,
  ): { toRead: string[]; reads: { path: string; text: string }[] } {
    const { calls, results } = newestBatch(messages);
    const toRead: string[] = [];
    const reads: { path: string; text: string }[] = [];
    for (const result of results) {
      const call = calls.get(result.toolCallId);
      const text = textOf(result);
      if (call?.name === READ_TOOL && !recovering) reads.push({ path: String(call.arguments.path), text });
      if (call?.name !== STAGE_TOOL) continue;
      const stage = Number(call.arguments.stage);
      if (stage === this.lastStage) {
        this.finalDelivered = true;
        this.addNeeds(text);
      } else if (!this.absorbed.has(stage) && !text.includes(PAYLOAD.redelivered)) {
        this.absorbed.add(stage);
        this.noteStage = stage;
        const line = text.split('\n').find((candidate) => candidate.startsWith(PAYLOAD.readLine));
        if (line !== undefined)
          toRead.push(
            ...line
              .slice(PAYLOAD.readLine.length)
              .split(', ')
              .filter((path) => path.length > 0),
          );
        this.addNeeds(text);
      }
    }
    return { toRead, reads };
  }

  /** Every open need answered from what the window shows, or a recovery call for it (at most a batch), or "unknown". */
  private answerFromWindow(request: ModelRequest): { answers: Record<string, string>; recoveries: ToolCallRequest[] } {
    const visible = windowText(request.messages);
    const files = visibleFiles(request.messages);
    const answers: Record<string, string> = {};
    const recoveries: ToolCallRequest[] = [];
    const offersFold = request.tools.some((tool) => tool.name === FOLD_TOOL);
    for (const [id, entry] of this.open) {
      const value =
        entry.need.kind === 'probe'
          ? PAYLOAD.markerPattern(entry.need.stage).exec(visible)?.[1]
          : visibleLine(
              files,
              entry.need.path,
              entry.need.line,
              readCallId(request.messages, visible, entry.need.path) ?? entry.callId,
            );
      if (value !== undefined) {
        answers[id] = value;
        if (entry.attempts > 0) this.log.recovered.add(id);
        this.open.delete(id);
        continue;
      }
      if (recoveries.length >= RECOVERY_BATCH) continue;
      const recovery = this.nextRecovery(entry, request.messages, visible, offersFold);
      if (recovery === undefined) {
        answers[id] = 'unknown';
        this.open.delete(id);
        continue;
      }
      entry.attempts += 1;
      recoveries.push(recovery);
    }
    return { answers, recoveries };
  }

  private addNeeds(text: string): void {
    const add = (need: Need): void => {
      if (!this.open.has(need.id))
        this.open.set(need.id, { need, peeked: new Set(), searched: new Set(), reread: false, attempts: 0 });
    };
    for (const match of text.matchAll(PAYLOAD.probePattern))
      add({ kind: 'probe', id: match[1]!, stage: Number(match[2]) });
    for (const match of text.matchAll(PAYLOAD.checkPattern))
      add({ kind: 'check', id: match[1]!, line: Number(match[2]), path: match[3]! });
  }

  private nextRecovery(
    entry: OpenNeed,
    messages: readonly Message[],
    visible: string,
    offersFold: boolean,
  ): ToolCallRequest | undefined {
    const { need } = entry;
    if (offersFold && entry.attempts < FOLD_STEPS_PER_NEED) {
      const step =
        need.kind === 'probe'
          ? this.markerFoldStep(entry, need.stage, visible)
          : this.fileFoldStep(entry, need.path, messages, visible);
      if (step !== undefined) return step;
    }
    if (entry.reread) return undefined;
    entry.reread = true;
    if (need.kind === 'check') {
      this.log.recoveryReads.fileRereads += 1;
      return { name: READ_TOOL, arguments: { path: need.path } };
    }
    this.log.recoveryReads.stageRereads += 1;
    return { name: STAGE_TOOL, arguments: { stage: need.stage } };
  }

  private peek(entry: OpenNeed, foldId: string, extra: Record<string, unknown> = {}): ToolCallRequest {
    entry.peeked.add(foldId);
    this.log.recoveryReads.peeks += 1;
    return { name: FOLD_TOOL, arguments: { action: 'peek', id: foldId, ...extra } };
  }

  private search(entry: OpenNeed, pattern: string): ToolCallRequest {
    entry.searched.add(pattern);
    this.log.recoveryReads.searches += 1;
    // One hit: a page stops scanning once it is full.
    return { name: FOLD_TOOL, arguments: { action: 'search', pattern, limit: 1 } };
  }

  /** A marker: the fold whose brief names its stage. */
  private markerFoldStep(entry: OpenNeed, stage: number, visible: string): ToolCallRequest | undefined {
    const foldId = foldNaming(visible, stage, entry.peeked);
    return foldId === undefined ? undefined : this.peek(entry, foldId);
  }

  /**
   * A file: the fold whose brief names the read, peeked whole; else the read's call found by
   * exact search of its arguments, then its result found by exact search of the call id, and
   * the fold that holds that result peeked whole.
   */
  private fileFoldStep(
    entry: OpenNeed,
    path: string,
    messages: readonly Message[],
    visible: string,
  ): ToolCallRequest | undefined {
    const named = foldMentioning(visible, [readMentions(path)[0]!], entry.peeked);
    if (named !== undefined) return this.peek(entry, named, { bytes: FILE_PEEK_BYTES });
    const callId = readCallId(messages, visible, path) ?? entry.callId;
    if (callId !== undefined) {
      entry.callId = callId;
      const hit = searchHitShowing(visible, resultMention(callId));
      // The hit's offset points at the call id, which canonical JSON puts after the text: the fold is peeked whole.
      if (hit !== undefined && !entry.peeked.has(hit.foldId))
        return this.peek(entry, hit.foldId, { bytes: FILE_PEEK_BYTES });
      if (!entry.searched.has(resultMention(callId))) return this.search(entry, resultMention(callId));
    }
    const callPattern = readMentions(path)[1]!;
    return entry.searched.has(callPattern) ? undefined : this.search(entry, callPattern);
  }
}

/**
 * A scripted turn's reply: the note and calls, or the closing text once nothing is left to
 * call. The request that carries recovered text is labelled `recovery` (a window that still
 * showed it would not have needed that request); one that answers or recovers, `probe`.
 */
export function turnReply(turn: {
  readonly recovering: boolean;
  readonly probing: boolean;
  readonly note: string | undefined;
  readonly toolCalls: readonly ToolCallRequest[];
  readonly closing: string;
}): ScriptedReply {
  const { note, toolCalls } = turn;
  const purpose = turn.recovering ? ('recovery' as const) : turn.probing ? ('probe' as const) : undefined;
  if (toolCalls.length === 0)
    return {
      text: `${note === undefined ? '' : `${note}\n`}${turn.closing}`,
      ...(purpose === undefined ? {} : { purpose }),
    };
  return { ...(note === undefined ? {} : { text: note }), toolCalls, ...(purpose === undefined ? {} : { purpose }) };
}

/** The recovery calls of a log, as every report counts them. */
export function recoveryCalls(log: AgentLog): RecoveryCalls {
  return { ...log.recoveryReads };
}

/** The newest assistant message's tool calls (by id) and the results that answered them (runtime notices after them skipped). */
export function newestBatch(messages: readonly Message[]): {
  calls: Map<string, ToolCallRequest>;
  results: Extract<Message, { role: 'toolResult' }>[];
} {
  const calls = new Map<string, ToolCallRequest>();
  const results: Extract<Message, { role: 'toolResult' }>[] = [];
  for (let position = messages.length - 1; position >= 0; position -= 1) {
    const message = messages[position]!;
    if (message.role === 'toolResult') {
      results.unshift(message);
      continue;
    }
    // A runtime's receipt or notice (a user-role message) may follow the results.
    if (message.role === 'user' && position > 0) continue;
    if (message.role === 'assistant')
      for (const part of message.content)
        if (part.type === 'toolCall') calls.set(part.id, { name: part.name, arguments: part.arguments });
    break;
  }
  return { calls, results };
}

export function textOf(message: Message): string {
  if (message.role === 'user')
    return typeof message.content === 'string'
      ? message.content
      : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  if (message.role === 'assistant')
    return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** Everything the model can read in its window, as one text. */
export function windowText(messages: readonly Message[]): string {
  return messages.map(textOf).join('\n');
}

/** The fold id whose placeholder or brief names `repo_stage(stage=N)`: the last fold id seen before that mention. */
export function foldNaming(visible: string, stage: number, exclude: ReadonlySet<string>): string | undefined {
  return foldMentioning(visible, [`${STAGE_TOOL}(stage=${stage})`], exclude);
}

/** One line per file read: its size and first exported declaration. */
function noteFor(stage: number, reads: readonly { path: string; text: string }[]): string {
  const findings = reads.map(({ path, text }) => {
    const lines = text.split('\n');
    const declaration =
      lines
        .find((line) => /^export\s/.test(line))
        ?.replace(/\s*[{=(].*$/, '')
        .slice(0, 60) ?? 'no exports';
    return `${path}: ${lines.length} lines, ${declaration}`;
  });
  return `Stage ${stage} notes: ${findings.join('; ')}`;
}
