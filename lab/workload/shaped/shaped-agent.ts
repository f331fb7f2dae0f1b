import type { Message } from '@mariozechner/pi-ai';
import type { ModelPolicy, ModelRequest, ScriptedReply } from '../../provider/simulated-provider.ts';
import { summarizeForCompaction } from '../lab-summarizer.ts';
import { ANSWER_TOOL, STAGE_TOOL } from '../stage-tools.ts';
import { newestBatch, RECOVERY_BATCH, textOf, turnReply, windowText } from '../staged-agent.ts';
import { FOLD_TOOL, resultMention } from '../window-files.ts';
import { SHAPED_PAYLOAD } from './shaped-tools.ts';

/** Peeks and searches tried per question before asking the tool again. */
const FOLD_STEPS_PER_NEED = 6;
/** A spill is peeked whole, up to the runtime's largest peek. */
const PEEK_BYTES = 200_000;
/**
 * A fold is peeked for the one entry that holds the output, no further: a peek's own result
 * is a tool result like any other, and one above the runtime's spill threshold would show
 * only its head.
 */
const ENTRY_TAIL_BYTES = 512;
/** How far before a match a search hit's peek offset starts (the runtime's excerpt context). */
const HIT_CONTEXT_BYTES = 80;
const ALIGNMENT_SLACK = 4;
/** The smallest peek the runtime serves. */
const MIN_PEEK_BYTES = 1024;
/** What runtimes and providers leave where a result was: never the output itself. */
const STUB_PREFIXES = ['[folded ', '[result folded into ', '[peek of ', '[cleared]'];

/** How the agent answered, kept outside the window for scoring. */
export interface ShapedAgentLog {
  /** Needs answered from a recovery (a peek or search of a fold, or the tool asked again). */
  readonly recovered: Set<string>;
  /** Needs answered from the tool asked again: what it says now, which may differ from then. */
  readonly reasked: Set<string>;
  readonly recoveryReads: {
    peeks: number;
    searches: number;
    fileRereads: number;
    stageRereads: number;
    commandReruns: number;
  };
}

type Call = { name: string; arguments: Record<string, unknown> };

interface OpenNeed {
  readonly id: string;
  readonly line: number;
  /** `stage.index` of the call whose output it asks about. */
  readonly source: string;
  readonly peeked: Set<string>;
  /** Pages of search results asked for so far. */
  searches: number;
  attempts: number;
  /** The call that asks the tool again, once sent, and its id once seen. */
  reaskSent: boolean;
  reaskId?: string;
}

/**
 * The closed-loop scripted agent of the shaped assignment. Deterministic, answering only from
 * what its window shows:
 * - a stage payload → the tool calls it lists, in one batch, in order;
 * - their results → a one-line note, then every open need answered from the window: line N
 *   of the output of the call it names, raw or inside a peeked fold's exact source;
 * - what is not visible is recovered the cheapest way the runtime allows, at most 3 calls a
 *   batch and `FOLD_STEPS_PER_NEED` fold steps a need: a fold arm searches the result by its
 *   call's id and peeks the fold that holds it; any arm else asks the tool again (the same
 *   command or read; for an edit, a read of the line it inserted) and answers from what the
 *   tool says now;
 * - nothing open → the next stage; after the final block is answered, a closing text.
 * The agent remembers the ids of the calls it made (as a model sees them in its own turns);
 * answers never leave the window. Summary calls get the stated summarizer.
 */
export function createShapedAgent(stages: number): { policy: ModelPolicy; log: ShapedAgentLog } {
  const agent = new ShapedAgent(stages);
  return { policy: (request) => agent.reply(request), log: agent.log };
}

class ShapedAgent {
  readonly log: ShapedAgentLog = {
    recovered: new Set(),
    reasked: new Set(),
    recoveryReads: { peeks: 0, searches: 0, fileRereads: 0, stageRereads: 0, commandReruns: 0 },
  };
  /** `stage.index` → the call the payload asked for. */
  private readonly planned = new Map<string, Call>();
  /** `stage.index` → the id of the call the agent made for it. */
  private readonly callIds = new Map<string, string>();
  private readonly open = new Map<string, OpenNeed>();
  private readonly absorbed = new Set<number>();
  /** What each call of the last batch was for, in order: a planned call, a need's re-ask, or nothing to remember. */
  private lastBatch: ({ planned: string } | { reask: string } | undefined)[] = [];
  private nextStage = 1;
  private noteStage = 0;
  private finalDelivered = false;
  private awaitingRecovery = false;

  constructor(private readonly stages: number) {}

  reply(request: ModelRequest): ScriptedReply {
    if (request.purpose === 'summary') return { text: summarizeForCompaction(request.messages) };
    const recovering = this.awaitingRecovery;
    this.awaitingRecovery = false;
    const { calls, results } = newestBatch(request.messages);
    const ranStage = this.lastBatch.some((sent) => sent !== undefined && 'planned' in sent);
    this.rememberIds([...calls.keys()]);
    let stageCalls: { key: string; call: Call }[] = [];
    for (const result of results) {
      const call = calls.get(result.toolCallId);
      if (call?.name === STAGE_TOOL) stageCalls = this.absorbStage(Number(call.arguments.stage), textOf(result));
    }
    if (stageCalls.length > 0) {
      this.lastBatch = stageCalls.map(({ key }) => ({ planned: key }));
      return { toolCalls: stageCalls.map(({ call }) => call) };
    }
    const note = ranStage ? `Stage ${this.noteStage} notes: ran ${results.length} calls.` : undefined;
    const { answers, recoveries } = this.answerFromWindow(request);
    const toolCalls: Call[] = [];
    const batch: typeof this.lastBatch = [];
    if (Object.keys(answers).length > 0) {
      toolCalls.push({ name: ANSWER_TOOL, arguments: { answers } });
      batch.push(undefined);
    }
    for (const { call, reaskOf } of recoveries) {
      toolCalls.push(call);
      batch.push(reaskOf === undefined ? undefined : { reask: reaskOf });
    }
    if (this.open.size === 0 && recoveries.length === 0 && !this.finalDelivered && this.nextStage <= this.stages + 1) {
      toolCalls.push({ name: STAGE_TOOL, arguments: { stage: this.nextStage } });
      batch.push(undefined);
      this.nextStage += 1;
    }
    this.lastBatch = batch;
    this.awaitingRecovery = recoveries.length > 0;
    return turnReply({
      recovering,
      probing: Object.keys(answers).length > 0 || recoveries.length > 0,
      note,
      toolCalls,
      closing: `Assignment complete: ${this.stages} stages done, every question answered.`,
    });
  }

  /** The ids of the newest batch's calls, matched in order with what the agent sent them for. */
  private rememberIds(ids: readonly string[]): void {
    this.lastBatch.forEach((purpose, position) => {
      const id = ids[position];
      if (purpose === undefined || id === undefined) return;
      if ('planned' in purpose) this.callIds.set(purpose.planned, id);
      else {
        const need = this.open.get(purpose.reask);
        if (need !== undefined) need.reaskId = id;
      }
    });
    this.lastBatch = [];
  }

  /** A stage payload: its calls to make (first delivery only) and its needs; the final block's needs. */
  private absorbStage(stage: number, text: string): { key: string; call: Call }[] {
    if (stage === this.stages + 1) this.finalDelivered = true;
    if (this.absorbed.has(stage)) return [];
    this.absorbed.add(stage);
    this.noteStage = stage;
    for (const match of text.matchAll(SHAPED_PAYLOAD.needPattern))
      this.open.set(match[1]!, {
        id: match[1]!,
        line: Number(match[2]),
        source: `${match[3]}.${match[4]}`,
        peeked: new Set(),
        searches: 0,
        attempts: 0,
        reaskSent: false,
      });
    const calls: { key: string; call: Call }[] = [];
    for (const match of text.matchAll(SHAPED_PAYLOAD.callPattern)) {
      const key = `${match[1]}.${match[2]}`;
      const call = { name: match[3]!, arguments: JSON.parse(match[4]!) as Record<string, unknown> };
      this.planned.set(key, call);
      calls.push({ key, call });
    }
    return calls;
  }

  private answerFromWindow(request: ModelRequest): {
    answers: Record<string, string>;
    recoveries: { call: Call; reaskOf?: string }[];
  } {
    const { outputs, spilledAs } = visibleOutputs(request.messages);
    const visible = windowText(request.messages);
    const offersFold = request.tools.some((tool) => tool.name === FOLD_TOOL);
    const answers: Record<string, string> = {};
    const recoveries: { call: Call; reaskOf?: string }[] = [];
    for (const [id, need] of this.open) {
      const callId = this.callIds.get(need.source);
      const original = callId === undefined ? undefined : outputs.get(callId);
      const again = need.reaskId === undefined ? undefined : outputs.get(need.reaskId);
      const value =
        original?.split('\n')[need.line - 1]?.trim() ??
        (again === undefined ? undefined : this.reaskValue(need, again));
      if (value !== undefined) {
        answers[id] = value;
        if (original === undefined) this.log.reasked.add(id);
        if (need.attempts > 0) this.log.recovered.add(id);
        this.open.delete(id);
        continue;
      }
      if (recoveries.length >= RECOVERY_BATCH) continue;
      const spill = callId === undefined ? undefined : spilledAs.get(callId);
      const recovery =
        offersFold && spill !== undefined && !need.peeked.has(spill)
          ? this.peekSpill(need, spill)
          : this.nextRecovery(need, callId, visible, offersFold);
      if (recovery === undefined) {
        answers[id] = 'unknown';
        this.open.delete(id);
        continue;
      }
      need.attempts += 1;
      recoveries.push(recovery);
    }
    return { answers, recoveries };
  }

  /** The rest of an output the runtime spilled: its exact bytes, by a peek of the spill. */
  private peekSpill(need: OpenNeed, spill: string): { call: Call } {
    need.peeked.add(spill);
    this.log.recoveryReads.peeks += 1;
    return { call: { name: FOLD_TOOL, arguments: { action: 'peek', id: spill, bytes: PEEK_BYTES } } };
  }

  /** The line a re-asked tool gives for a need: the same line, or for an edit the line it inserted. */
  private reaskValue(need: OpenNeed, output: string): string | undefined {
    const planned = this.planned.get(need.source);
    const line = planned?.name === 'edit' ? Number(planned.arguments.line) + 1 : need.line;
    return output.split('\n')[line - 1]?.trim();
  }

  private nextRecovery(
    need: OpenNeed,
    callId: string | undefined,
    visible: string,
    offersFold: boolean,
  ): { call: Call; reaskOf?: string } | undefined {
    if (offersFold && callId !== undefined && need.attempts < FOLD_STEPS_PER_NEED) {
      const mention = resultMention(callId);
      const hit = entryHitShowing(visible, mention, need.peeked);
      if (hit !== undefined) {
        need.peeked.add(hit.key);
        this.log.recoveryReads.peeks += 1;
        return {
          call: {
            name: FOLD_TOOL,
            arguments: { action: 'peek', id: hit.id, offset: hit.entryStart, bytes: hit.bytes },
          },
        };
      }
      // The first match may be the call rather than its result (an AI SDK call part names its id
      // the same way): each further search asks for the next page of matches.
      const page = need.searches + 1;
      need.searches = page;
      this.log.recoveryReads.searches += 1;
      return {
        call: {
          name: FOLD_TOOL,
          arguments: { action: 'search', pattern: mention, limit: 1, ...(page > 1 ? { page } : {}) },
        },
      };
    }
    if (need.reaskSent) return undefined;
    const planned = this.planned.get(need.source);
    if (planned === undefined) return undefined;
    need.reaskSent = true;
    if (planned.name === 'bash' || planned.name === 'grep') {
      this.log.recoveryReads.commandReruns += 1;
      return { call: planned, reaskOf: need.id };
    }
    this.log.recoveryReads.fileRereads += 1;
    return { call: { name: 'read', arguments: { path: planned.arguments.path } }, reaskOf: need.id };
  }
}

/** A search hit line: the fold or spill, the byte of the match inside its entry, and the match's offset in the source. */
const HIT_LINE =
  /^\d+\. (fold|spill) (\S+) · entry \S+ · byte (\d+) · read: \{"action":"peek","id":"\S+","offset":(\d+)\}$/;

/**
 * The newest search hit whose excerpt shows `mention`, not yet peeked: where the entry that
 * holds it starts, so a peek from there shows that entry whole (a fold larger than one peek
 * would otherwise cut it off).
 */
export function entryHitShowing(
  visible: string,
  mention: string,
  peeked: ReadonlySet<string>,
): { id: string; entryStart: number; bytes: number; key: string } | undefined {
  const lines = visible.split('\n');
  let found: { id: string; entryStart: number; bytes: number; key: string } | undefined;
  for (let position = 0; position + 1 < lines.length; position += 1) {
    const hit = HIT_LINE.exec(lines[position]!);
    if (hit === null || !lines[position + 1]!.includes(mention)) continue;
    // A spill holds one item: peeked from its start, its header line says which spill it is.
    // A fold's hit offers a peek from a little before the match; the entry starts `byte` before
    // the match. A few bytes earlier still, so a code point's alignment cannot cut the line's start.
    const before = Math.max(0, Number(hit[3]) - HIT_CONTEXT_BYTES) + ALIGNMENT_SLACK;
    const entryStart = hit[1] === 'spill' ? 0 : Math.max(0, Number(hit[4]) - before);
    const key = `${hit[2]}@${entryStart}`;
    // The id comes after the output in both hosts' canonical JSON: the entry ends soon after it.
    const bytes =
      hit[1] === 'spill' ? PEEK_BYTES : Math.max(MIN_PEEK_BYTES, before + HIT_CONTEXT_BYTES + ENTRY_TAIL_BYTES);
    if (!peeked.has(key)) found = { id: hit[2]!, entryStart, bytes, key };
  }
  return found;
}

/** A spilled result's pointer line in the window: what follows it is not the output's next line. */
const SPILL_LINE = /^\[pi-fold spilled (sp_\w+): /;
/** The first line of a spill's peek. */
const SPILL_PEEK_HEADER = /^spill (sp_\w+) \| \d+ bytes \| sha256 [0-9a-f]+ verified$/;

/** The tool outputs a window shows, by call id, and the spills whose exact bytes a peek would give. */
export interface VisibleOutputs {
  /** Call id → the output, or only its head when the runtime spilled the rest (lines after the head are not shown). */
  readonly outputs: Map<string, string>;
  /** Call id → the spill holding the rest of its output, when the window shows only a head. */
  readonly spilledAs: Map<string, string>;
}

/**
 * Every tool output the window shows, by the id of the call that produced it: raw results
 * (only the head of a spilled one: its last head line may be cut, so it is left out), results
 * inside a peek of a fold's exact source (one entry per line of canonical JSON, in whichever
 * host's shape: a Pi `toolResult` or an AI SDK `tool-result` part), and spilled outputs whose
 * peek the window shows. Stubs and placeholders show no output.
 */
export function visibleOutputs(messages: readonly Message[]): VisibleOutputs {
  const outputs = new Map<string, string>();
  const spilledAs = new Map<string, string>();
  const spillTexts = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== 'toolResult') continue;
    const text = textOf(message);
    if (message.toolName === FOLD_TOOL) {
      const [first = '', ...rest] = text.split('\n');
      const spill = SPILL_PEEK_HEADER.exec(first);
      if (spill !== null) spillTexts.set(spill[1]!, rest.join('\n'));
      else for (const line of text.split('\n')) if (line.startsWith('{')) notePeekedLine(line, outputs);
      continue;
    }
    if (STUB_PREFIXES.some((prefix) => text.startsWith(prefix))) continue;
    const lines = text.split('\n');
    const pointer = lines.findIndex((line) => SPILL_LINE.test(line));
    if (pointer < 0) {
      outputs.set(message.toolCallId, text);
      continue;
    }
    spilledAs.set(message.toolCallId, SPILL_LINE.exec(lines[pointer]!)![1]!);
    outputs.set(message.toolCallId, lines.slice(0, Math.max(0, pointer - 1)).join('\n'));
  }
  for (const [callId, spill] of spilledAs) {
    const whole = spillTexts.get(spill);
    if (whole !== undefined) outputs.set(callId, whole);
  }
  return { outputs, spilledAs };
}

function notePeekedLine(line: string, outputs: Map<string, string>): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return;
  }
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) {
      for (const item of value) visit(item);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    const id = record.toolCallId;
    if (typeof id === 'string') {
      const text =
        record.role === 'toolResult' && Array.isArray(record.content)
          ? (record.content as { type?: unknown; text?: unknown }[])
              .map((part) => (part.type === 'text' && typeof part.text === 'string' ? part.text : ''))
              .join('\n')
          : record.type === 'tool-result'
            ? outputValue(record.output)
            : undefined;
      if (text !== undefined && !STUB_PREFIXES.some((prefix) => text.startsWith(prefix))) outputs.set(id, text);
    }
    for (const child of Object.values(record)) if (typeof child === 'object') visit(child);
  };
  visit(parsed);
}

function outputValue(output: unknown): string | undefined {
  if (typeof output !== 'object' || output === null) return undefined;
  const value = (output as { value?: unknown }).value;
  return typeof value === 'string' ? value : undefined;
}
