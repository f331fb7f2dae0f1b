import type { EngineMemory } from '../engine-memory.ts';
import type { Frontier, FrontierInputs } from '../frontier.ts';

/** What the fence writes: the frontier's cursors and the marks it cuts. */
export interface FenceTarget {
  readonly frontier: Frontier;
  readonly memory: EngineMemory;
  frontierInputs(): FrontierInputs;
}

/**
 * docs/behaviour.md I6: over the budget, every lossless fold counts, including spans the agent asked to keep
 * raw (holds). Pins, protected and open units still never fold. The holds stay recorded:
 * they only ever stop automatic cutting.
 */
export function cutForFence(target: FenceTarget): void {
  const { memory, frontier } = target;
  const holds = memory.holds;
  memory.holds = [];
  try {
    frontier.reset();
    for (let pass = 0; pass < 1_000; pass += 1) {
      if (frontier.pass(target.frontierInputs()).length === 0) break;
    }
  } finally {
    memory.holds = holds;
  }
}
