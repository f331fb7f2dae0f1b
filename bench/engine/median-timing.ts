/** Median of a list of numbers (the list is copied, not sorted in place). */
export function medianOf(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * Median seconds of one call, after three warm-up calls. Benchmarks report ratios of these
 * medians, because absolute times drift on a shared machine. `reset`, when given, runs
 * after every call outside the timing (to undo what the call did).
 */
export async function medianSeconds(
  rounds: number,
  run: () => Promise<unknown>,
  reset?: () => Promise<unknown>,
): Promise<number> {
  for (let warm = 0; warm < 3; warm += 1) {
    await run();
    await reset?.();
  }
  const samples: number[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const started = process.hrtime.bigint();
    await run();
    samples.push(Number(process.hrtime.bigint() - started) / 1e9);
    await reset?.();
  }
  return medianOf(samples);
}
