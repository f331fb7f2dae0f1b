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
  readonly descriptorTokens: number;
  readonly providerCapTokens: number;
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
}

const WORDS = ['amber', 'basalt', 'cobalt', 'dune', 'ember', 'fjord', 'garnet', 'harbor', 'indigo', 'juniper', 'kelp', 'lumen', 'meadow', 'nickel', 'onyx', 'pewter', 'quartz', 'russet', 'saffron', 'tundra', 'umber', 'velvet', 'willow', 'xenon', 'yarrow', 'zephyr'];

/** mulberry32: a small seeded generator, so the same seed plans the same assignment. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = state;
    mixed = Math.imul(mixed ^ (mixed >>> 15), mixed | 1);
    mixed ^= mixed + Math.imul(mixed ^ (mixed >>> 7), mixed | 61);
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

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
  for (let stage = 1; stage <= preset.stages; stage += 1) markers.push(`${WORDS[pick(0, WORDS.length - 1)]}-${String(pick(0, 9999)).padStart(4, '0')}`);
  const stages: StagePlan[] = [];
  for (let stage = 1; stage <= preset.stages; stage += 1) {
    const files = Array.from({ length: preset.filesPerStage }, (_, offset) => tree.files[((stage - 1) * preset.filesPerStage + offset) % tree.files.length]!);
    let probe: Question | undefined;
    if (stage >= preset.firstProbeStage && (stage - preset.firstProbeStage) % preset.probeEvery === 0) {
      const candidates = Array.from({ length: stage - 2 }, (_, index) => index + 1).filter((earlier) => !asked.has(earlier));
      if (candidates.length > 0) {
        const target = candidates[pick(0, candidates.length - 1)]!;
        asked.add(target);
        probe = { id: `P${stage}`, stage: target };
        answerKey.set(probe.id, markers[target - 1]!);
      }
    }
    stages.push({ stage, files, marker: markers[stage - 1]!, ...(probe === undefined ? {} : { probe }) });
  }
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
  return { preset, seed, tree, stages, finalBlock, answerKey };
}
