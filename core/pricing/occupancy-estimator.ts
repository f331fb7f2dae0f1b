import type { CalibrationSampleV1, EngineState } from '../../ports/fold-records.ts';

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

  /** Estimated prompt tokens of a projection of `chars` chars sent with `overheadChars` of host overhead. */
  estimate(chars: number, overheadChars: number): number {
    const perToken = this.charsPerToken();
    if (this.anchor === undefined) return Math.ceil((chars + overheadChars) / perToken);
    return Math.max(0, Math.ceil(this.anchor.tokens + (chars + overheadChars - this.anchor.chars) / perToken));
  }

  tokensForChars(chars: number): number {
    return chars / this.charsPerToken();
  }

  /** Record the provider's prompt count for a prompt of `chars` chars, the host's overhead included. */
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

/** Chars-per-token calibration, read only. */
export interface EstimatorView {
  charsPerToken(): number;
  tokensForChars(chars: number): number;
  calibration(): EngineState['calibration'];
}
