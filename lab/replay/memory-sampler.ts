/** The high-water marks of this process's memory while a replay ran. */
export interface PeakMemory {
  readonly peakRssBytes: number;
  readonly peakHeapUsedBytes: number;
  readonly samples: number;
}

/**
 * Samples `process.memoryUsage()` on a timer and whenever `sample()` is called (a replay
 * calls it on every request: the timer alone would miss peaks while the event loop is busy).
 */
export class MemorySampler {
  private peakRss = 0;
  private peakHeapUsed = 0;
  private count = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(intervalMs = 50) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    // A sampler must never keep the process alive on its own.
    this.timer.unref();
  }

  /** Take one sample now. */
  sample(): void {
    const usage = process.memoryUsage();
    this.count += 1;
    if (usage.rss > this.peakRss) this.peakRss = usage.rss;
    if (usage.heapUsed > this.peakHeapUsed) this.peakHeapUsed = usage.heapUsed;
  }

  /** Stop sampling and return the peaks (one last sample included). */
  stop(): PeakMemory {
    this.sample();
    clearInterval(this.timer);
    return this.peaks();
  }

  peaks(): PeakMemory {
    return { peakRssBytes: this.peakRss, peakHeapUsedBytes: this.peakHeapUsed, samples: this.count };
  }
}
