/** Requests the inflow is averaged over: long enough to smooth one large read, short enough to follow a change of pace. */
const INFLOW_WINDOW = 12;

/**
 * Tokens appended per request, observed from the ledger (docs/behaviour.md B3.2): the growth of each request's
 * window (before any commit) over the window sent just before it. In memory only: after a
 * restart the pace is learned again from the next requests.
 */
export class InflowTracker {
  private readonly samples: number[] = [];
  private lastSentTokens: number | undefined;

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
