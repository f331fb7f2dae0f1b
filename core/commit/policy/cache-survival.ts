import type { CacheReportV1 } from '../../../ports/fold-records.ts';

/**
 * What the provider's own reports say about how long its cache lives (docs/behaviour.md B3.3).
 * A price list states a lifetime, but a provider may drop a prefix well before it, more often
 * the longer the request waited (a person reading between turns). Each report pairs the idle
 * gap before a request with whether the provider read anything from its cache; the share of
 * losses at a gap is the chance that the cache is already gone there, and the scheduler
 * weighs a rewrite's premium by the chance that it is not.
 */
/** What the provider's reports have taught so far, for `status`. */
export interface CacheLossSummary {
  /** Pure appends the provider read from its cache, among the reports kept. */
  readonly reads: number;
  /** Pure appends that found nothing to read. */
  readonly losses: number;
  /**
   * Where the learned chance that the cache is gone steps up: from a pause of `fromGapMs` on,
   * it is `share`. Empty while too little is known to learn from.
   */
  readonly steps: readonly { readonly fromGapMs: number; readonly share: number }[];
}

export class CacheSurvival {
  private readonly reports: CacheReportV1[] = [];
  private readReports = 0;
  /** The monotone fit of the kept reports, until the next report. */
  private fit: readonly LossPool[] | undefined;

  /** @param restored reports a reopened session kept; malformed ones are skipped. */
  constructor(restored: readonly CacheReportV1[] = []) {
    for (const report of restored) this.observe(report.gapMs, report.lost);
  }

  /** The reports kept, oldest first, for the session's state. */
  kept(): readonly CacheReportV1[] {
    return [...this.reports];
  }

  /** The provider answered a request sent `gapMs` after the cache was last touched. */
  observe(gapMs: number, lost: boolean): void {
    if (!Number.isFinite(gapMs) || gapMs < 0 || typeof lost !== 'boolean') return;
    if (!lost) this.readReports += 1;
    this.reports.push({ gapMs, lost });
    this.fit = undefined;
    if (this.reports.length > KEPT_REPORTS) {
      const dropped = this.reports.shift();
      if (dropped !== undefined && !dropped.lost) this.readReports -= 1;
    }
  }

  /**
   * The chance that the cache is gone after an idle gap of `gapMs`. A cache that outlived a
   * gap outlives any shorter one, so the chance can only grow with the gap: it is the
   * monotone fit of the reports' losses over their gaps (pooled adjacent violators), read at
   * the longest reported gap not above this one, each pool counting one read beside its
   * reports so a single loss is never a certainty. Zero until the provider has shown it caches
   * at all and has lost a prefix more than once: a provider that never reads from cache
   * teaches nothing about lifetimes.
   */
  lossShare(gapMs: number): number {
    if (!(gapMs >= 0)) return 0;
    let share = 0;
    for (const pool of this.learnedFit()) {
      if (pool.fromGapMs > gapMs) break;
      share = pool.share;
    }
    return share;
  }

  summary(): CacheLossSummary {
    const steps: { fromGapMs: number; share: number }[] = [];
    for (const pool of this.learnedFit())
      if (pool.share > (steps[steps.length - 1]?.share ?? 0))
        steps.push({ fromGapMs: pool.fromGapMs, share: pool.share });
    return { reads: this.readReports, losses: this.reports.length - this.readReports, steps };
  }

  /** The monotone fit, once the provider has shown enough reads and losses; none before. */
  private learnedFit(): readonly LossPool[] {
    if (this.readReports < MIN_READS || this.reports.length - this.readReports < MIN_LOSSES) return [];
    this.fit ??= monotoneFit(this.reports);
    return this.fit;
  }
}

/** The learned steps as a person reads them, newest four: `≥80 s 71%, ≥111 s 75%`. */
export function describeLossSteps(steps: CacheLossSummary['steps']): string {
  return steps
    .slice(-4)
    .map((step) => `≥${Math.round(step.fromGapMs / 1000)} s ${Math.round(step.share * 100)}%`)
    .join(', ');
}

interface LossPool {
  /** The shortest gap in the pool. */
  readonly fromGapMs: number;
  readonly share: number;
}

/**
 * Pools of reports, in order of gap, whose loss shares strictly rise (pool adjacent violators).
 * Neighbours of equal share are pooled too, so the read counted beside each pool weighs on
 * the evidence once, not once per report.
 */
function monotoneFit(reports: readonly CacheReportV1[]): readonly LossPool[] {
  const sorted = [...reports].sort((a, b) => a.gapMs - b.gapMs);
  const pools: { fromGapMs: number; lost: number; count: number }[] = [];
  for (const report of sorted) {
    pools.push({ fromGapMs: report.gapMs, lost: report.lost ? 1 : 0, count: 1 });
    while (pools.length > 1) {
      const last = pools[pools.length - 1];
      const before = pools[pools.length - 2];
      if (last === undefined || before === undefined || before.lost * last.count < last.lost * before.count) break;
      pools.pop();
      before.lost += last.lost;
      before.count += last.count;
    }
  }
  // Counting a read beside each pool shrinks a small pool more than a large one, which could
  // make a short pool after a long one read lower: the running maximum keeps the fit rising.
  let share = 0;
  return pools.map((pool) => {
    share = Math.max(share, pool.lost / (pool.count + 1));
    return { fromGapMs: pool.fromGapMs, share };
  });
}

/** Reports kept: the newest, so a provider that changes its ways is followed. */
const KEPT_REPORTS = 256;
/** Reads a provider must have shown before its losses are read as a lifetime. */
const MIN_READS = 3;
/** Losses the provider must have shown before they are read as a lifetime. */
const MIN_LOSSES = 2;
