import type { InflowV1 } from '../../../ports/fold-records.ts';

/**
 * Requests the inflow is averaged over: long enough to smooth one large read, short enough to
 * follow a change of pace.
 */
const INFLOW_WINDOW = 12;

/**
 * Tokens appended per request, observed from the ledger (docs/behaviour.md B3.2): the growth of each request's
 * window (before any commit) over the window sent just before it. Both the samples and the
 * window last sent are kept in the session's state, so a reopened session has its pace.
 */
export class InflowTracker {
  private readonly samples: number[] = [];
  private lastSentTokens: number | undefined;

  /** @param restored the pace a reopened session kept (its state's `inflow`). */
  constructor(restored?: InflowV1) {
    for (const sample of restored?.samples.slice(-INFLOW_WINDOW) ?? [])
      if (Number.isFinite(sample) && sample > 0) this.samples.push(sample);
    const anchor = restored?.lastSentTokens;
    if (anchor !== undefined && Number.isFinite(anchor) && anchor >= 0) this.lastSentTokens = anchor;
  }

  /** The pace as the session's state keeps it. */
  kept(): InflowV1 {
    return {
      samples: [...this.samples],
      ...(this.lastSentTokens === undefined ? {} : { lastSentTokens: this.lastSentTokens }),
    };
  }

  /** Record one request: `preCommitTokens` is its window before any commit, `sentTokens` what went out. */
  observe(preCommitTokens: number, sentTokens: number): void {
    // A request that appended nothing (a retry, or a host projecting the same transcript again)
    // says nothing about the session's pace: counted as 0, a few of them shrank the economic
    // excess by √ of their share and made the scheduler commit on a transcript that had not moved.
    if (this.lastSentTokens !== undefined && preCommitTokens > this.lastSentTokens) {
      this.samples.push(preCommitTokens - this.lastSentTokens);
      if (this.samples.length > INFLOW_WINDOW) this.samples.shift();
    }
    this.lastSentTokens = sentTokens;
  }

  /** Mean tokens appended per request, undefined until one request has followed another. */
  perRequest(): number | undefined {
    if (this.samples.length === 0) return undefined;
    return this.samples.reduce((sum, sample) => sum + sample, 0) / this.samples.length;
  }

  /** Forget the last window (the transcript changed under us: its growth says nothing). */
  resetAnchor(): void {
    this.lastSentTokens = undefined;
  }
}
