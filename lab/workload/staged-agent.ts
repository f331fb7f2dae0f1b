import type { Message } from '@mariozechner/pi-ai';
import type { ModelPolicy, ModelRequest, ScriptedReply } from '../provider/simulated-provider.ts';
import { summarizeForCompaction } from './lab-summarizer.ts';
import type { AssignmentPlan, Question } from './stage-plan.ts';
import { ANSWER_TOOL, PAYLOAD, STAGE_TOOL } from './stage-tools.ts';

/** The fold runtime's agent tool (Pi adapter), used for peeks when the session offers it. */
export const FOLD_TOOL = 'pi_fold_context';
/** Recovery calls the agent makes in one batch at most (a small batch keeps re-reads from flooding the window). */
export const RECOVERY_BATCH = 3;
/** Peeks tried per question before falling back to re-reading the stage. */
const PEEKS_PER_QUESTION = 4;

/** How the agent answered, kept outside the window for scoring. */
export interface AgentLog {
  /** Question ids answered right after at least one recovery read. */
  readonly recovered: Set<string>;
  readonly recoveryReads: { peeks: number; stageRereads: number };
}

interface OpenQuestion {
  readonly question: Question;
  readonly peeked: Set<string>;
  reread: boolean;
  attempts: number;
}

/**
 * The closed-loop scripted agent of the staged assignment. Deterministic, and it answers
 * only from what its window shows:
 * - a stage payload → read the files it names, in one batch;
 * - read results → write a one-line note per file, then answer any open question from the
 *   window; a value not visible is recovered the cheapest way the runtime allows (a peek of
 *   the fold whose brief names `repo_stage(stage=N)` when `pi_fold_context` is offered, else a
 *   re-read of that stage), at most 3 recoveries per batch; when nothing recovers it, "unknown";
 * - no open question → the next stage; after the final block is answered, a closing text.
 * Control state (the next stage, open question ids) is the agent's plan and lives outside the
 * window; answers never do. Summary calls (native compaction) get the stated summarizer.
 */
export function createStagedAgent(plan: AssignmentPlan): { policy: ModelPolicy; log: AgentLog } {
  const log: AgentLog = { recovered: new Set(), recoveryReads: { peeks: 0, stageRereads: 0 } };
  const lastStage = plan.preset.stages + 1;
  const absorbed = new Set<number>();
  const open = new Map<string, OpenQuestion>();
  let nextStage = 1;
  let noteStage = 0;
  let finalDelivered = false;

  const policy: ModelPolicy = (request: ModelRequest): ScriptedReply => {
    if (request.purpose === 'summary') return { text: summarizeForCompaction(request.messages) };
    const { calls, results } = newestBatch(request.messages);
    const toRead: string[] = [];
    const reads: { path: string; text: string }[] = [];
    for (const result of results) {
      const call = calls.get(result.toolCallId);
      const text = textOf(result);
      if (call?.name === 'read') reads.push({ path: String(call.arguments.path), text });
      if (call?.name !== STAGE_TOOL) continue;
      const stage = Number(call.arguments.stage);
      if (stage === lastStage) {
        finalDelivered = true;
        addQuestions(text);
      } else if (!absorbed.has(stage) && !text.includes(PAYLOAD.redelivered)) {
        absorbed.add(stage);
        noteStage = stage;
        const line = text.split('\n').find((candidate) => candidate.startsWith(PAYLOAD.readLine));
        if (line !== undefined) toRead.push(...line.slice(PAYLOAD.readLine.length).split(', ').filter((path) => path.length > 0));
        addQuestions(text);
      }
    }
    if (toRead.length > 0) return { toolCalls: toRead.map((path) => ({ name: 'read', arguments: { path } })) };
    const note = reads.length > 0 ? noteFor(noteStage, reads) : undefined;
    const visible = windowText(request.messages);
    const answers: Record<string, string> = {};
    const recoveries: { name: string; arguments: Record<string, unknown> }[] = [];
    const offersPeek = request.tools.some((tool) => tool.name === FOLD_TOOL);
    for (const [id, entry] of open) {
      const value = PAYLOAD.markerPattern(entry.question.stage).exec(visible)?.[1];
      if (value !== undefined) {
        answers[id] = value;
        if (entry.attempts > 0) log.recovered.add(id);
        open.delete(id);
        continue;
      }
      if (recoveries.length >= RECOVERY_BATCH) continue;
      const recovery = nextRecovery(entry, visible, offersPeek);
      if (recovery === undefined) {
        answers[id] = 'unknown';
        open.delete(id);
        continue;
      }
      entry.attempts += 1;
      recoveries.push(recovery);
    }
    const toolCalls = [...(Object.keys(answers).length > 0 ? [{ name: ANSWER_TOOL, arguments: { answers } }] : []), ...recoveries];
    if (open.size === 0 && recoveries.length === 0 && !finalDelivered && nextStage <= lastStage) {
      toolCalls.push({ name: STAGE_TOOL, arguments: { stage: nextStage } });
      nextStage += 1;
    }
    const probeWork = Object.keys(answers).length > 0 || recoveries.length > 0;
    if (toolCalls.length === 0) return { text: `${note === undefined ? '' : `${note}\n`}Assignment complete: ${plan.preset.stages} stages delivered, every question answered.` };
    return { ...(note === undefined ? {} : { text: note }), toolCalls, ...(probeWork ? { purpose: 'probe' as const } : {}) };
  };

  function addQuestions(text: string): void {
    for (const match of text.matchAll(PAYLOAD.probePattern)) {
      const id = match[1]!;
      if (!open.has(id)) open.set(id, { question: { id, stage: Number(match[2]) }, peeked: new Set(), reread: false, attempts: 0 });
    }
  }

  function nextRecovery(entry: OpenQuestion, visible: string, offersPeek: boolean): { name: string; arguments: Record<string, unknown> } | undefined {
    if (offersPeek && entry.peeked.size < PEEKS_PER_QUESTION) {
      const foldId = foldNaming(visible, entry.question.stage, entry.peeked);
      if (foldId !== undefined) {
        entry.peeked.add(foldId);
        log.recoveryReads.peeks += 1;
        return { name: FOLD_TOOL, arguments: { action: 'peek', id: foldId } };
      }
    }
    if (entry.reread) return undefined;
    entry.reread = true;
    log.recoveryReads.stageRereads += 1;
    return { name: STAGE_TOOL, arguments: { stage: entry.question.stage } };
  }

  return { policy, log };
}

/** The newest assistant message's tool calls (by id) and the results that answered them (runtime notices after them skipped). */
function newestBatch(messages: readonly Message[]): { calls: Map<string, { name: string; arguments: Record<string, unknown> }>; results: Extract<Message, { role: 'toolResult' }>[] } {
  const calls = new Map<string, { name: string; arguments: Record<string, unknown> }>();
  const results: Extract<Message, { role: 'toolResult' }>[] = [];
  for (let position = messages.length - 1; position >= 0; position -= 1) {
    const message = messages[position]!;
    if (message.role === 'toolResult') {
      results.unshift(message);
      continue;
    }
    // A runtime's receipt or notice (a user-role message) may follow the results.
    if (message.role === 'user' && position > 0) continue;
    if (message.role === 'assistant') for (const part of message.content) if (part.type === 'toolCall') calls.set(part.id, { name: part.name, arguments: part.arguments });
    break;
  }
  return { calls, results };
}

function textOf(message: Message): string {
  if (message.role === 'user') return typeof message.content === 'string' ? message.content : message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  if (message.role === 'assistant') return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
}

/** Everything the model can read in its window, as one text. */
function windowText(messages: readonly Message[]): string {
  return messages.map(textOf).join('\n');
}

/** The fold id whose placeholder or brief names `repo_stage(stage=N)`: the last fold id seen before that mention. */
export function foldNaming(visible: string, stage: number, exclude: ReadonlySet<string>): string | undefined {
  let lastFold: string | undefined;
  for (const match of visible.matchAll(/fold_[0-9a-f]{24}|repo_stage\(stage=(\d+)\)/g)) {
    if (match[1] === undefined) lastFold = match[0];
    else if (Number(match[1]) === stage && lastFold !== undefined && !exclude.has(lastFold)) return lastFold;
  }
  return undefined;
}

/** One line per file read: its size and first exported declaration. */
function noteFor(stage: number, reads: readonly { path: string; text: string }[]): string {
  const findings = reads.map(({ path, text }) => {
    const lines = text.split('\n');
    const declaration = lines.find((line) => /^export\s/.test(line))?.replace(/\s*[{=(].*$/, '').slice(0, 60) ?? 'no exports';
    return `${path}: ${lines.length} lines, ${declaration}`;
  });
  return `Stage ${stage} notes: ${findings.join('; ')}`;
}
