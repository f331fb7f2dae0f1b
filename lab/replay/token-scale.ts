/**
 * How many tokens the recorder's provider counted per lab token, read from the recording's
 * own usage. The lab counts every text with one tokenizer; a recording's provider used its
 * own, which can count the same conversation a tenth or a fifth longer. Only growth is
 * compared: the first request also holds the host's block (`host-block.ts`), which the
 * replay sizes afterwards, so each request's prompt is taken less the first one's.
 */
export interface TokenScale {
  readonly scale: number;
  /** Requests the fit used. */
  readonly requests: number;
}

/** Below this growth over the first request a pair says too little about the ratio. */
const MIN_GROWTH_TOKENS = 2_000;
/** A recorded prompt this much below the largest before it was compacted: the pairs stop there. */
const COMPACTED_SHARE = 0.8;
/** Fewer usable pairs than this leave the scale at 1. */
const MIN_PAIRS = 5;

/**
 * The least-squares slope, through the origin, of recorded growth against replayed growth,
 * over the requests before the recording first compacted (where both saw the same
 * conversation). `recorded[i]` and `replayed[i]` are the i-th request's prompt tokens
 * (undefined where unknown); without enough pairs the scale is 1.
 */
export function fitTokenScale(
  recorded: readonly (number | undefined)[],
  replayed: readonly (number | undefined)[],
): TokenScale {
  const length = Math.min(recorded.length, replayed.length);
  let first = 0;
  while (first < length && (recorded[first] === undefined || replayed[first] === undefined)) first += 1;
  if (first === length) return { scale: 1, requests: 0 };
  const recordedFirst = recorded[first]!;
  const replayedFirst = replayed[first]!;
  let largest = recordedFirst;
  let products = 0;
  let squares = 0;
  let pairs = 0;
  for (let index = first + 1; index < length; index += 1) {
    const recordedTokens = recorded[index];
    const replayedTokens = replayed[index];
    if (recordedTokens === undefined || replayedTokens === undefined) continue;
    if (recordedTokens < COMPACTED_SHARE * largest) break;
    largest = Math.max(largest, recordedTokens);
    const replayedGrowth = replayedTokens - replayedFirst;
    if (replayedGrowth < MIN_GROWTH_TOKENS) continue;
    products += (recordedTokens - recordedFirst) * replayedGrowth;
    squares += replayedGrowth * replayedGrowth;
    pairs += 1;
  }
  if (pairs < MIN_PAIRS || squares === 0) return { scale: 1, requests: pairs };
  return { scale: Math.round((products / squares) * 1000) / 1000, requests: pairs };
}
