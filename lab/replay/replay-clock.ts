import type { ReplayPlan } from './replay-plan.ts';

/** How a replay's time passes: as recorded, or a uniform 15 s per request (the lab's clock). */
export type ReplayClock = 'recorded' | 'uniform';

/** The recorded clock of a replay: each response's request time, as ms after the first. */
export interface RecordedTimes {
  /** One offset per response, in order, never decreasing. */
  readonly offsetsMs: readonly number[];
  /** Requests that came longer than `idleSeconds` after the one before: their cache had expired. */
  readonly idleGaps: number;
}

/**
 * The recorded request times of a plan, when every response carries one; undefined otherwise
 * (then the replay falls back to the uniform clock and says so). A response's time is when its
 * recorder wrote it, which trails the request by the model's latency: the gaps between them
 * are the gaps between requests to within that latency. A recorder's clock stepping back (a
 * clock change, interleaved lines) is taken as no time passing, never as time running back.
 */
export function recordedTimes(plan: Pick<ReplayPlan, 'turns'>, idleSeconds: number): RecordedTimes | undefined {
  const responses = plan.turns.flatMap((turn) => turn.responses);
  if (responses.length === 0 || responses.some((response) => response.time === undefined)) return undefined;
  const start = responses[0]!.time!;
  const offsetsMs: number[] = [];
  let idleGaps = 0;
  for (const response of responses) {
    const offset = Math.max(offsetsMs.at(-1) ?? 0, response.time! - start);
    if (offsetsMs.length > 0 && offset - offsetsMs.at(-1)! > idleSeconds * 1000) idleGaps += 1;
    offsetsMs.push(offset);
  }
  return { offsetsMs, idleGaps };
}
