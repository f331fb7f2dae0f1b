/**
 * Axis ticks at round values (1, 2, 2.5 or 5 times a power of ten) from 0 to at least `top`:
 * what the viewer's and the lab's charts label their y-axis with, so a reader meets 50k,
 * 100k, 150k rather than 49.6k, 99.2k, 148.8k. At most `maximum` + 1 ticks.
 */
export function niceTicks(top: number, maximum = 5): number[] {
  if (!Number.isFinite(top) || top <= 0) return [0, 1];
  const rough = top / maximum;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * power).find((candidate) => candidate >= rough)!;
  const ticks: number[] = [];
  for (let value = 0; value < top + step * 1e-9; value += step) ticks.push(Number(value.toPrecision(12)));
  if (ticks[ticks.length - 1]! < top) ticks.push(Number((ticks[ticks.length - 1]! + step).toPrecision(12)));
  return ticks;
}
