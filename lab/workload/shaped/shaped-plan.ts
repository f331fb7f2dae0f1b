import { readFileSync } from 'node:fs';
import { seededRandom } from '../../../testing/seeded-random.ts';
import type { SourceTree } from '../source-tree.ts';
import { apportion, CALL_KINDS, type CallKind, type ToolMixCounts } from '../tool-mix.ts';
import { mix, ProjectState, SHELL_COMMANDS } from './project-state.ts';

/** Sizes of a shaped assignment. */
export interface ShapedPreset {
  readonly name: string;
  readonly stages: number;
  /** Tool calls each stage asks for; over the run they follow the measured tool mix. */
  readonly callsPerStage: number;
  /** An ordinary probe every `probeEvery` stages from `firstProbeStage` on, about a call 2 or more stages back. */
  readonly probeEvery: number;
  readonly firstProbeStage: number;
  /** Questions in the withheld block after the last stage, about calls spread over the run. */
  readonly finalQuestions: number;
  /** Working-set checks per stage (from stage 2 on), about calls of the last `workingSetStages` stages. */
  readonly checksPerStage: number;
  readonly workingSetStages: number;
  readonly descriptorTokens: number;
  readonly providerCapTokens: number;
}

/** One tool call a stage asks for. */
export interface PlannedCall {
  readonly stage: number;
  /** 1-based position in its stage. */
  readonly index: number;
  readonly kind: CallKind;
  readonly tool: 'bash' | 'edit' | 'read' | 'grep';
  readonly arguments: Readonly<Record<string, string | number>>;
  /** What the tool returned when the plan ran it (the answer key's source; never in the window as such). */
  readonly output: string;
}

/**
 * A question about line `line` of a call's output: a probe (far back), a working-set check
 * (recent) or a final question. Asking the tool again means `reask` and its `reaskLine`: the
 * same call for a read, a command or a search; a read of the file at the inserted line for an edit.
 */
export interface ShapedNeed {
  readonly id: string;
  readonly kind: 'probe' | 'check' | 'final';
  /** The stage whose payload asks it (the last stage + 1 for the final block). */
  readonly askedAt: number;
  readonly source: { readonly stage: number; readonly index: number };
  readonly sourceKind: CallKind;
  readonly line: number;
  readonly reask: { readonly tool: PlannedCall['tool']; readonly arguments: PlannedCall['arguments'] };
  readonly reaskLine: number;
}

export interface ShapedPlan {
  readonly preset: ShapedPreset;
  readonly seed: number;
  readonly tree: SourceTree;
  readonly stages: readonly (readonly PlannedCall[])[];
  readonly needs: readonly ShapedNeed[];
  /** Need id → the line it asks for (trimmed), as the tool gave it then. Outside the window. */
  readonly answerKey: ReadonlyMap<string, string>;
  /** The edits the plan lands in all. */
  readonly plannedEdits: number;
  /** The measured counts the plan's call mix and need mix follow. */
  readonly mix: ToolMixCounts;
}

/** The pooled counts of the four real transcripts (`npm run lab:tool-mix` writes them). */
export function measuredToolMix(): ToolMixCounts {
  const file = new URL('../tool-mix.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { pooled: ToolMixCounts }).pooled;
}

/** A question's line is long enough to be unmistakable, and among the first lines of the output. */
const NEED_MIN_CHARS = 12;
const NEED_LINE_LIMIT = 40;
/**
 * Files the workload reads: whole, and small enough that one, read or peeked back as an entry
 * of canonical JSON, stays below the runtime's spill threshold, so every arm shows it alike.
 */
const READABLE_CHARS = 10_000;
const GREP_PATTERNS = ['addIssueToContext', 'ZodFirstPartyTypeKind', 'ParseStatus', 'errorUtil', 'processCreateParams'];

/**
 * Plan the shaped assignment: stage k asks for `callsPerStage` tool calls, whose kinds over
 * the run follow the measured mix (shuffled by the seed, with every read of a file that
 * changes later followed by an edit of that file); the plan runs them on a fresh project to
 * learn each output; then needs are drawn, their source kinds in the proportion real models
 * refer back to each kind.
 */
export function planShapedAssignment(
  tree: SourceTree,
  preset: ShapedPreset,
  seed: number,
  measured: ToolMixCounts = measuredToolMix(),
): ShapedPlan {
  const random = seededRandom(seed);
  const total = preset.stages * preset.callsPerStage;
  const kinds = shuffled(
    CALL_KINDS.flatMap((kind) => Array<CallKind>(apportion(total, measured.calls)[kind]).fill(kind)),
    random,
  );
  everyChangedReadEditedLater(kinds);
  const plannedEdits = kinds.filter((kind) => kind === 'edit').length;
  const readable = shuffled(
    tree.files.filter((file) => file.bytes <= READABLE_CHARS && file.bytes > 600).map((file) => file.path),
    random,
  );
  const changedCount = kinds.filter((kind) => kind === 'read-changed').length;
  const changedPool = readable.slice(0, Math.max(1, Math.min(changedCount, Math.floor(readable.length / 2))));
  const stablePool = readable.slice(changedPool.length);
  const directories = [...new Set(tree.files.map((file) => file.path.split('/').slice(0, -1).join('/')))].sort();
  const project = new ProjectState(tree, seed, plannedEdits);
  const pending: string[] = [];
  let lastEdited: string | undefined;
  let changedNext = 0;
  let stableNext = 0;
  const stages: PlannedCall[][] = [];
  for (let stage = 1; stage <= preset.stages; stage += 1) {
    project.stage = stage;
    const calls: PlannedCall[] = [];
    for (let index = 1; index <= preset.callsPerStage; index += 1) {
      const kind = kinds[(stage - 1) * preset.callsPerStage + index - 1]!;
      const code = mix(seed, stage, index);
      let call: Omit<PlannedCall, 'output'>;
      if (kind === 'read-changed') {
        const path = changedPool[changedNext++ % changedPool.length]!;
        pending.push(path);
        call = { stage, index, kind, tool: 'read', arguments: { path } };
      } else if (kind === 'read-unchanged') {
        call = { stage, index, kind, tool: 'read', arguments: { path: stablePool[stableNext++ % stablePool.length]! } };
      } else if (kind === 'edit') {
        const path = pending.shift() ?? lastEdited ?? changedPool[changedNext++ % changedPool.length]!;
        lastEdited = path;
        // Inside the file, so the inserted line is always line + 1.
        const line = 1 + (code % Math.min(30, project.read(path).split('\n').length - 1));
        const text = `const guard_${code % 100_000} = check${stage}x${index}(input); // stage ${stage}: ${['empty input', 'null branch', 'refine order', 'issue path', 'coercion'][code % 5]}`;
        call = { stage, index, kind, tool: 'edit', arguments: { path, line, text } };
      } else if (kind === 'shell') {
        const command = SHELL_COMMANDS[code % SHELL_COMMANDS.length]!;
        const full = command === 'ls -l' ? `ls -l ${directories[(code >>> 4) % directories.length] || '.'}` : command;
        call = { stage, index, kind, tool: 'bash', arguments: { command: full } };
      } else {
        call = {
          stage,
          index,
          kind,
          tool: 'grep',
          arguments: { pattern: GREP_PATTERNS[code % GREP_PATTERNS.length]! },
        };
      }
      calls.push({ ...call, output: runCall(project, call) });
    }
    stages.push(calls);
  }
  const { needs, answerKey } = planNeeds(preset, seed, stages, measured);
  return { preset, seed, tree, stages, needs, answerKey, plannedEdits, mix: measured };
}

/** What a call returns on the project as it stands (and what it changes, for an edit). */
export function runCall(project: ProjectState, call: Pick<PlannedCall, 'tool' | 'arguments'>): string {
  const args = call.arguments;
  switch (call.tool) {
    case 'read':
      return project.read(String(args.path));
    case 'edit':
      return project.edit(String(args.path), Number(args.line), String(args.text));
    case 'bash':
      return project.shell(String(args.command));
    case 'grep':
      return project.grep(String(args.pattern));
  }
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}

/**
 * Move edits so that every read of a file that changes later has an edit of its own after it:
 * walking back from the end, a changed read with no spare edit after it trades places with
 * the nearest edit before it. Counts stay as they are.
 */
function everyChangedReadEditedLater(kinds: CallKind[]): void {
  let spare = 0;
  for (let position = kinds.length - 1; position >= 0; position -= 1) {
    if (kinds[position] === 'read-changed' && spare === 0) {
      const before = kinds.lastIndexOf('edit', position);
      if (before < 0) {
        kinds[position] = 'read-unchanged';
        continue;
      }
      kinds[before] = 'read-changed';
      kinds[position] = 'edit';
    }
    if (kinds[position] === 'edit') spare += 1;
    else if (kinds[position] === 'read-changed') spare -= 1;
  }
}

/** Lines of an output a question may ask for: long enough, within the head, past the first. */
function askableLines(output: string): number[] {
  return output
    .split('\n')
    .slice(0, NEED_LINE_LIMIT)
    .flatMap((text, index) => (index > 0 && text.trim().length >= NEED_MIN_CHARS ? [index + 1] : []));
}

/** The call that asks a tool again what a need asks about, and which line of its answer to take. */
function reaskOf(call: PlannedCall, line: number): Pick<ShapedNeed, 'reask' | 'reaskLine'> {
  if (call.tool !== 'edit') return { reask: { tool: call.tool, arguments: call.arguments }, reaskLine: line };
  const inserted = Number(/inserted 1 line after line (\d+)/.exec(call.output)?.[1] ?? 0) + 1;
  return { reask: { tool: 'read', arguments: { path: call.arguments.path! } }, reaskLine: inserted };
}

function planNeeds(
  preset: ShapedPreset,
  seed: number,
  stages: readonly (readonly PlannedCall[])[],
  measured: ToolMixCounts,
): { needs: ShapedNeed[]; answerKey: Map<string, string> } {
  const random = seededRandom(seed ^ 0x5eed_c0de);
  const slots: { id: string; kind: ShapedNeed['kind']; askedAt: number; from: number; to: number }[] = [];
  for (let stage = 2; stage <= preset.stages; stage += 1) {
    for (let count = 0; count < preset.checksPerStage; count += 1)
      slots.push({
        id: `W${stage}${String.fromCharCode(97 + count)}`,
        kind: 'check',
        askedAt: stage,
        from: Math.max(1, stage - preset.workingSetStages),
        to: stage - 1,
      });
    if (stage >= preset.firstProbeStage && (stage - preset.firstProbeStage) % preset.probeEvery === 0)
      slots.push({ id: `P${stage}`, kind: 'probe', askedAt: stage, from: 1, to: stage - 2 });
  }
  for (let position = 0; position < preset.finalQuestions; position += 1) {
    const around = Math.max(1, Math.round(((position + 0.5) * preset.stages) / preset.finalQuestions));
    slots.push({ id: `F${position + 1}`, kind: 'final', askedAt: preset.stages + 1, from: 1, to: around });
  }
  const wanted = apportion(slots.length, measured.references);
  const order = shuffled(
    CALL_KINDS.flatMap((kind) => Array<CallKind>(wanted[kind]).fill(kind)),
    random,
  );
  // Several questions may ask about one output (real models refer back to one test run or one
  // file many times), each about a line of its own.
  const used = new Set<string>();
  const openLines = (call: PlannedCall): number[] =>
    askableLines(call.output).filter((line) => !used.has(`${call.stage}.${call.index}:${line}`));
  const candidates = (kind: CallKind, from: number, to: number): PlannedCall[] =>
    stages
      .slice(from - 1, Math.max(from - 1, to))
      .flat()
      .filter((call) => call.kind === kind && openLines(call).length > 0);
  const needs: ShapedNeed[] = [];
  const answerKey = new Map<string, string>();
  // A kind with no call in a slot's range waits for a later slot, so the totals stay as measured.
  const waiting: CallKind[] = [];
  slots.forEach((slot, position) => {
    const tries = [...waiting, order[position]!, ...CALL_KINDS];
    for (const kind of tries) {
      let pool = candidates(kind, slot.from, slot.to);
      // A kind the recent stages did not call is asked about further back.
      if (pool.length === 0) pool = candidates(kind, 1, slot.askedAt - 1);
      if (pool.length === 0) continue;
      const call = pool[Math.floor(random() * pool.length)]!;
      const lines = openLines(call);
      const line = lines[Math.floor(random() * lines.length)]!;
      used.add(`${call.stage}.${call.index}:${line}`);
      needs.push({
        id: slot.id,
        kind: slot.kind,
        askedAt: slot.askedAt,
        source: { stage: call.stage, index: call.index },
        sourceKind: call.kind,
        line,
        ...reaskOf(call, line),
      });
      answerKey.set(slot.id, call.output.split('\n')[line - 1]!.trim());
      const waited = waiting.indexOf(kind);
      if (waited >= 0) {
        waiting.splice(waited, 1);
        waiting.push(order[position]!);
      } else if (kind !== order[position]) waiting.push(order[position]!);
      return;
    }
  });
  return { needs, answerKey };
}
