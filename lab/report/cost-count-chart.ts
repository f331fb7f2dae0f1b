const WIDTH = 760;
const MARGIN = { left: 70, right: 24, top: 24, bottom: 40 };

/** A chart of arms on cost (across) against a count (up), both scales linear from zero. */
export interface CostCountChart {
  readonly className: string;
  readonly ariaLabel: string;
  readonly height: number;
  /** The right end of the cost axis, in dollars. */
  readonly maxCost: number;
  /** The top of the count axis. */
  readonly maxCount: number;
  /** What the axes show, written above the plot. */
  readonly caption: string;
}

/** Where a point lands on the plot. */
export interface CostCountScale {
  readonly x: (costUsd: number) => number;
  readonly y: (count: number) => number;
}

/**
 * The chart as inline SVG: the plot box, the end ticks of both axes and the caption, around
 * the marks `drawMarks` places with the chart's scales.
 */
export function costCountSvg(chart: CostCountChart, drawMarks: (scale: CostCountScale) => string): string {
  const { height, maxCost, maxCount } = chart;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = height - MARGIN.top - MARGIN.bottom;
  const x = (cost: number): number => MARGIN.left + (cost / maxCost) * plotWidth;
  const y = (count: number): number => MARGIN.top + plotHeight - (count / maxCount) * plotHeight;
  return [
    `<svg class="${chart.className}" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${chart.ariaLabel}">`,
    `<rect class="plot" x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}"/>`,
    `<text class="tick" x="${MARGIN.left}" y="${height - 10}">$0</text>`,
    `<text class="tick" x="${WIDTH - MARGIN.right}" y="${height - 10}" text-anchor="end">cost $${maxCost.toFixed(2)}</text>`,
    `<text class="tick" x="${MARGIN.left - 6}" y="${MARGIN.top + 10}" text-anchor="end">${Math.round(maxCount)}</text>`,
    `<text class="tick" x="${MARGIN.left - 6}" y="${MARGIN.top + plotHeight}" text-anchor="end">0</text>`,
    `<text class="tick" x="${MARGIN.left + 4}" y="${MARGIN.top - 8}">${chart.caption}</text>`,
    drawMarks({ x, y }),
    '</svg>',
  ].join('\n');
}
