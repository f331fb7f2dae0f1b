import type { CalibrationSampleV1 } from '../ports/fold-records.ts';
import { FoldError } from './fold-error.ts';

/**
 * docs/behaviour.md I6: the refusal of a request over the budget, saying which case it is: a commit the store
 * refused (`refusedStore`, its name) could have made room; otherwise no lossless fold can.
 */
export function budgetExceeded(input: {
  estimatedTokens: number;
  budgetTokens: number;
  request: number;
  refusedStore: string | undefined;
}): FoldError {
  const { estimatedTokens, budgetTokens, request, refusedStore } = input;
  const why =
    refusedStore !== undefined
      ? `the ${refusedStore} store refused the commit that would have made room`
      : 'no lossless fold can make room (pinned, protected or open material fills the window)';
  return new FoldError(
    'BUDGET.EXCEEDED',
    `the request would carry about ${estimatedTokens} tokens against a budget of ${budgetTokens}, and ${why}`,
    {
      details: { estimatedTokens, budgetTokens, request, commitRefusedByStore: refusedStore !== undefined },
    },
  );
}

/** Output reservation taken out of a model window when no explicit budget is given. */
export function outputReservation(contextWindow: number): number {
  return Math.min(16_384, Math.floor(0.1 * contextWindow));
}

/**
 * The serving budget: the single denominator of every ratio. An explicit
 * `providerInputBudget` is used as given; otherwise the window less its output reservation.
 */
export function servingBudget(providerInputBudget: number | undefined, contextWindow: number | undefined): number {
  if (providerInputBudget !== undefined) return providerInputBudget;
  if (contextWindow === undefined || !Number.isFinite(contextWindow) || contextWindow < 1000) {
    throw new FoldError(
      'SETTINGS.INVALID',
      'no serving budget: set providerInputBudget or let the host report the model context window (at least 1000 tokens)',
      {
        details: { contextWindow: contextWindow ?? null },
      },
    );
  }
  return contextWindow - outputReservation(contextWindow);
}

const CALIBRATION_SAMPLES = 6;
const CALIBRATION_MIN_CHARS = 20_000;
const CALIBRATION_MIN_TOKENS = 5_000;
const CHARS_PER_TOKEN_FLOOR = 2;
const CHARS_PER_TOKEN_CEILING = 12;

/**
 * Occupancy anchored on the provider's own count. The last reported prompt size is the
 * truth; only what changed since is estimated, with chars per token calibrated from
 * provider counts. The minimum observed ratio is used because underestimating tokens is
 * what overflows a window.
 */
export class OccupancyEstimator {
  private samples: CalibrationSampleV1[];
  private anchor: { chars: number; tokens: number } | undefined;
  /** The ratio the samples give, until a new sample arrives: it is asked for several times per request. */
  private ratio: number | undefined;

  constructor(
    private readonly defaultCharsPerToken: number,
    samples: readonly CalibrationSampleV1[] = [],
  ) {
    this.samples = [...samples];
    // The newest sample is the last provider count: it stays the anchor across a restart.
    const newest = this.samples[this.samples.length - 1];
    this.anchor = newest === undefined ? undefined : { ...newest };
  }

  charsPerToken(): number {
    this.ratio ??= calibratedRatio(this.samples, this.defaultCharsPerToken);
    return this.ratio;
  }

  /** Estimated prompt tokens of a projection of `chars` chars (plus host overhead when unanchored). */
  estimate(chars: number, overheadChars: number): number {
    const perToken = this.charsPerToken();
    if (this.anchor === undefined) return Math.ceil((chars + overheadChars) / perToken);
    return Math.max(0, Math.ceil(this.anchor.tokens + (chars + overheadChars - this.anchor.chars) / perToken));
  }

  tokensForChars(chars: number): number {
    return chars / this.charsPerToken();
  }

  /** Record the provider's prompt count for a projection of `chars` chars. */
  recordProviderCount(chars: number, promptTokens: number): void {
    if (!Number.isFinite(promptTokens) || promptTokens <= 0) return;
    this.anchor = { chars, tokens: promptTokens };
    this.samples.push({ chars, tokens: promptTokens });
    if (this.samples.length > CALIBRATION_SAMPLES) this.samples = this.samples.slice(-CALIBRATION_SAMPLES);
    this.ratio = undefined;
  }

  calibration(): readonly CalibrationSampleV1[] {
    return this.samples;
  }
}

/** The lowest chars-per-token ratio of the samples large enough to trust, within the floor and ceiling. */
function calibratedRatio(samples: readonly CalibrationSampleV1[], defaultCharsPerToken: number): number {
  let lowest = Number.POSITIVE_INFINITY;
  for (const sample of samples) {
    if (sample.chars >= CALIBRATION_MIN_CHARS && sample.tokens >= CALIBRATION_MIN_TOKENS)
      lowest = Math.min(lowest, sample.chars / sample.tokens);
  }
  if (lowest === Number.POSITIVE_INFINITY) return defaultCharsPerToken;
  return Math.min(CHARS_PER_TOKEN_CEILING, Math.max(CHARS_PER_TOKEN_FLOOR, lowest));
}
