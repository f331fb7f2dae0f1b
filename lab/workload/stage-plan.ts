import { seededRandom } from '../../testing/seeded-random.ts';
import type { SourceFile, SourceTree } from './source-tree.ts';

/** Sizes of a staged assignment. */
export interface StagedPreset {
  readonly name: string;
  readonly stages: number;
  /** Files per stage: the first is shown inline, the rest the agent reads. */
  readonly filesPerStage: number;
  /** Chars of the first file shown inside the stage payload. */
  readonly inlineChars: number;
  /** An ordinary probe at every stage `k` every `probeEvery` stages from `firstProbeStage` on. */
  readonly probeEvery: number;
  readonly firstProbeStage: number;
  /** Questions in the withheld block after the last stage. */
  readonly finalQuestions: number;
  /** Working set: each stage's work needs details of files read in this many stages before it. */
  readonly workingSetStages: number;
  /** Working-set checks per stage (from stage 2 on), each on a distinct file. */
  readonly checksPerStage: number;
  readonly descriptorTokens: number;
  readonly providerCapTokens: number;
}

/** A detail of a recently read file that a stage's work needs: line `line` of `path`, as read. */
export interface WorkingSetCheck {
  readonly id: string;
  readonly path: string;
  /** 1-based line number; always within the first `CHECK_LINE_LIMIT` lines. */
  readonly line: number;
  /** The stage whose reads brought the file in. */
  readonly readAtStage: number;
}

/** A question about the marker planted at `stage`. */
export interface Question {
  readonly id: string;
  readonly stage: number;
}

export interface StagePlan {
  readonly stage: number;
  readonly files: readonly SourceFile[];
  readonly marker: string;
  /** Ordinary probe delivered with this stage, if any. */
  readonly probe?: Question;
  /** Working-set checks this stage's work needs. */
  readonly checks: readonly WorkingSetCheck[];
}

/** The whole assignment: stages, hidden values, and the withheld block. The key stays here, out of the window. */
export interface AssignmentPlan {
  readonly preset: StagedPreset;
  readonly seed: number;
  readonly tree: SourceTree;
  readonly stages: readonly StagePlan[];
  readonly finalBlock: readonly Question[];
  /** Question id → the marker it asks for. */
  readonly answerKey: ReadonlyMap<string, string>;
  /** Working-set check id → the line it asks for (trimmed). Outside the window, like the answer key. */
  readonly checkKey: ReadonlyMap<string, string>;
}

/** Checked lines lie in the head of a file, which every runtime shows when it shows the file at all. */
export const CHECK_LINE_LIMIT = 40;
/** A checked line is long enough to be unmistakable. */
const CHECK_MIN_CHARS = 12;

const WORDS = [
  'amber',
  'basalt',
  'cobalt',
  'dune',
  'ember',
  'fjord',
  'garnet',
  'harbor',
  'indigo',
  'juniper',
  'kelp',
  'lumen',
  'meadow',
  'nickel',
  'onyx',
  'pewter',
  'quartz',
  'russet',
  'saffron',
  'tundra',
  'umber',
  'velvet',
  'willow',
  'xenon',
  'yarrow',
  'zephyr',
];

/**
 * Plan the assignment: stage k takes the next `filesPerStage` files of the sorted tree
 * (wrapping), plants one marker, and every probe asks about a distinct earlier stage; the
 * withheld block asks about stages no probe asked, spread over the whole run.
 */
export function planAssignment(tree: SourceTree, preset: StagedPreset, seed: number): AssignmentPlan {
  const random = seededRandom(seed);
  const pick = (from: number, to: number): number => from + Math.floor(random() * (to - from + 1));
  const asked = new Set<number>();
  const answerKey = new Map<string, string>();
  const markers: string[] = [];
  for (let stage = 1; stage <= preset.stages; stage += 1)
    markers.push(`${WORDS[pick(0, WORDS.length - 1)]}-${String(pick(0, 9999)).padStart(4, '0')}`);
  const stages: StagePlan[] = [];
  for (let stage = 1; stage <= preset.stages; stage += 1) {
    const files = Array.from(
      { length: preset.filesPerStage },
      (_, offset) => tree.files[((stage - 1) * preset.filesPerStage + offset) % tree.files.length]!,
    );
    let probe: Question | undefined;
    if (stage >= preset.firstProbeStage && (stage - preset.firstProbeStage) % preset.probeEvery === 0) {
      const candidates = Array.from({ length: stage - 2 }, (_, index) => index + 1).filter(
        (earlier) => !asked.has(earlier),
      );
      if (candidates.length > 0) {
        const target = candidates[pick(0, candidates.length - 1)]!;
        asked.add(target);
        probe = { id: `P${stage}`, stage: target };
        answerKey.set(probe.id, markers[target - 1]!);
      }
    }
    stages.push({ stage, files, marker: markers[stage - 1]!, ...(probe === undefined ? {} : { probe }), checks: [] });
  }
  const checkKey = planWorkingSetChecks(tree, preset, seed, stages);
  const remaining = Array.from({ length: preset.stages }, (_, index) => index + 1).filter((stage) => !asked.has(stage));
  const finalBlock: Question[] = [];
  const count = Math.min(preset.finalQuestions, remaining.length);
  for (let position = 0; position < count; position += 1) {
    // Evenly spread over the unasked stages, so early and late material are both tested.
    const stage = remaining[Math.floor(((position + 0.5) * remaining.length) / count)]!;
    const question = { id: `F${position + 1}`, stage };
    finalBlock.push(question);
    answerKey.set(question.id, markers[stage - 1]!);
  }
  return { preset, seed, tree, stages, finalBlock, answerKey, checkKey };
}

/**
 * The working-set rule: from stage 2 on, each stage's work needs `checksPerStage` details,
 * each a line from the head of a file read (not shown inline) in one of the
 * `workingSetStages` stages before it. Drawn from a generator of its own, so markers and
 * probes are the same as without checks. Fills `stages[k].checks`; returns the key.
 */
function planWorkingSetChecks(
  tree: SourceTree,
  preset: StagedPreset,
  seed: number,
  stages: StagePlan[],
): Map<string, string> {
  const random = seededRandom(seed ^ 0x5eed_c0de);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const key = new Map<string, string>();
  const lineCache = new Map<string, { line: number; text: string }[]>();
  const checkable = (path: string): { line: number; text: string }[] => {
    let lines = lineCache.get(path);
    if (lines === undefined) {
      lines = tree
        .read(path)
        .split('\n')
        .slice(0, CHECK_LINE_LIMIT)
        .map((text, index) => ({ line: index + 1, text: text.trim() }))
        .filter((candidate) => candidate.text.length >= CHECK_MIN_CHARS);
      lineCache.set(path, lines);
    }
    return lines;
  };
  for (let position = 1; position < stages.length; position += 1) {
    const recent = stages.slice(Math.max(0, position - preset.workingSetStages), position);
    const candidates = recent
      .flatMap((earlier) => earlier.files.slice(1).map((file) => ({ file, stage: earlier.stage })))
      .filter(({ file }) => checkable(file.path).length > 0);
    const checks: WorkingSetCheck[] = [];
    for (let count = 0; count < preset.checksPerStage; count += 1) {
      const open = candidates.filter(({ file }) => !checks.some((check) => check.path === file.path));
      if (open.length === 0) break;
      const chosen = pick(open);
      const line = pick(checkable(chosen.file.path));
      const check = {
        id: `W${position + 1}${String.fromCharCode(97 + count)}`,
        path: chosen.file.path,
        line: line.line,
        readAtStage: chosen.stage,
      };
      checks.push(check);
      key.set(check.id, line.text);
    }
    stages[position] = { ...stages[position]!, checks };
  }
  return key;
}
