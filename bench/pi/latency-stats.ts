/** Mean, median, 99th percentile and maximum of a series of milliseconds (p99 of 95 values is the largest). */
export interface LatencyStats {
  readonly mean: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

export function latencyStats(values: readonly number[]): LatencyStats {
  const sorted = [...values].sort((a, b) => a - b);
  return {
    mean: sorted.reduce((sum, value) => sum + value, 0) / sorted.length,
    p50: sorted[Math.floor(sorted.length / 2)]!,
    p99: sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.99) - 1)]!,
    max: sorted.at(-1)!,
  };
}

/** One printed line of a series: the label padded to `labelWidth`, then mean · p50 · p99 · max and the count. */
export function latencyLine(label: string, values: readonly number[], labelWidth: number): string {
  const { mean, p50, p99, max } = latencyStats(values);
  return `${label.padEnd(labelWidth)} mean ${mean.toFixed(2)} ms · p50 ${p50.toFixed(2)} ms · p99 ${p99.toFixed(2)} ms · max ${max.toFixed(2)} ms (n=${values.length})`;
}
