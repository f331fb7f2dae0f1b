import { escapeHtml } from '../../application/html-escape.ts';
import type { ArmSummary } from './arm-summary.ts';
import { COST_SPLIT_PARTS } from './cost-split.ts';
import type { LabRun } from './lab-records.ts';

const WIDTH = 900;
const HEIGHT = 340;
const MARGIN = { left: 76, right: 150, top: 20, bottom: 36 };
const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#be185d', '#4d7c0f', '#6b7280'];
/** Arms that measure something other than a policy: their size would set the scale for everyone. */
const REFERENCE_ARMS = new Set(['oracle', 'unmanaged']);

const colorOf = (position: number): string => PALETTE[position % PALETTE.length]!;

interface Series {
  readonly arm: string;
  readonly values: readonly number[];
}

/**
 * Every arm on one set of axes, one polyline per arm with one point per request. The scale is
 * set by the policies, not by the references: a value above the top is drawn at the top and
 * the arm named under the chart, so a fold arm's band is not flattened by the oracle.
 */
function overlaid(
  series: readonly Series[],
  options: {
    readonly id: string;
    readonly label: string;
    readonly top: number;
    readonly unit: (value: number) => string;
    readonly lines?: readonly { readonly value: number; readonly className: string; readonly label: string }[];
  },
): string {
  const longest = Math.max(1, ...series.map((entry) => entry.values.length));
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (index: number): number => MARGIN.left + (longest <= 1 ? 0 : (index / (longest - 1)) * plotWidth);
  const y = (value: number): number =>
    MARGIN.top + plotHeight - (Math.min(value, options.top) / options.top) * plotHeight;
  const parts = [
    `<svg class="overlay-chart" id="${options.id}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(options.label)}">`,
  ];
  parts.push(`<rect class="plot" x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}"/>`);
  for (const fraction of [0, 0.25, 0.5, 0.75, 1]) {
    const value = options.top * fraction;
    parts.push(
      `<text class="tick" x="${MARGIN.left - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${escapeHtml(options.unit(value))}</text>`,
    );
  }
  parts.push(
    `<text class="tick" x="${MARGIN.left}" y="${HEIGHT - 10}">request 0</text><text class="tick" x="${MARGIN.left + plotWidth}" y="${HEIGHT - 10}" text-anchor="end">request ${longest - 1}</text>`,
  );
  for (const line of options.lines ?? []) {
    if (line.value > options.top) continue;
    parts.push(
      `<line class="${line.className}" x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(line.value).toFixed(1)}" y2="${y(line.value).toFixed(1)}"/><text class="${line.className}-label" x="${MARGIN.left + 4}" y="${(y(line.value) - 4).toFixed(1)}">${escapeHtml(line.label)}</text>`,
    );
  }
  series.forEach((entry, position) => {
    const points = entry.values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(' ');
    parts.push(
      `<polyline class="arm-series" data-arm="${escapeHtml(entry.arm)}" stroke="${colorOf(position)}" points="${points}"><title>${escapeHtml(entry.arm)}</title></polyline>`,
    );
    parts.push(
      `<text class="series-label" x="${MARGIN.left + plotWidth + 8}" y="${MARGIN.top + 14 + position * 16}" fill="${colorOf(position)}">${escapeHtml(entry.arm)}</text>`,
    );
  });
  parts.push('</svg>');
  const clipped = series
    .filter((entry) => entry.values.some((value) => value > options.top))
    .map((entry) => `${entry.arm} (up to ${options.unit(Math.max(...entry.values))})`);
  return `${parts.join('')}${clipped.length > 0 ? `<p class="clipped">Drawn at the top where they run off the scale: ${escapeHtml(clipped.join(', '))}.</p>` : ''}`;
}

/** The scale policies are read on: the largest value of any non-reference arm, and every given line. */
function policyTop(series: readonly Series[], floor: number): number {
  const policies = series.filter((entry) => !REFERENCE_ARMS.has(entry.arm));
  const largest = Math.max(0, ...(policies.length > 0 ? policies : series).flatMap((entry) => entry.values));
  return Math.max(largest, floor) * 1.08 || 1;
}

/** Prompt tokens per request of every arm, against the budget and the long-context price line. */
export function overlaidPromptChart(run: LabRun, boundaryTokens: number | undefined): string {
  const series = run.arms.map((arm) => ({ arm: arm.arm, values: arm.rows.map((row) => row.promptTokens) }));
  const budget = run.settings.descriptorTokens;
  // The price line is drawn when it falls inside that scale; it never stretches the scale itself.
  const top = policyTop(series, budget);
  const lines = [{ value: budget, className: 'budget-line', label: `budget ${budget.toLocaleString('en-US')}` }];
  if (boundaryTokens !== undefined && boundaryTokens !== budget)
    lines.push({
      value: boundaryTokens,
      className: 'price-boundary',
      label: `long-context price line ${boundaryTokens.toLocaleString('en-US')}`,
    });
  return overlaid(series, {
    id: 'overlay-prompt',
    label: 'prompt tokens per request, every arm',
    top,
    unit: (value) => `${Math.round(value / 1000)}k`,
    lines,
  });
}

/** Dollars spent so far after each request, every arm on one chart. */
export function cumulativeCostChart(run: LabRun): string {
  const series = run.arms.map((arm) => {
    let total = 0;
    return { arm: arm.arm, values: arm.rows.map((row) => (total += row.costUsd)) };
  });
  return overlaid(series, {
    id: 'overlay-cost',
    label: 'cumulative dollars per request, every arm',
    top: policyTop(series, 0),
    unit: (value) => `$${value.toFixed(value < 10 ? 2 : 0)}`,
  });
}

/** Each arm's cost as one stacked bar, split by where the dollars went. */
export function costStackedBars(summaries: readonly ArmSummary[]): string {
  const rowHeight = 26;
  const left = 130;
  const width = 900;
  const plotWidth = width - left - 90;
  // Legend places first (about 6 px per char at 11 px, plus swatch and gap), wrapping to a new row at the edge.
  const legend: { x: number; row: number; label: string; position: number }[] = [];
  let legendX = left;
  let legendRow = 0;
  COST_SPLIT_PARTS.forEach((part, position) => {
    const itemWidth = 14 + part.label.length * 6 + 16;
    if (legendX + itemWidth > width - 10 && legendX > left) {
      legendRow += 1;
      legendX = left;
    }
    legend.push({ x: legendX, row: legendRow, label: part.label, position });
    legendX += itemWidth;
  });
  const height = 30 + summaries.length * rowHeight + 24 + (legendRow + 1) * 16;
  const largest =
    Math.max(
      0,
      ...summaries.map((summary) => COST_SPLIT_PARTS.reduce((sum, part) => sum + summary.costSplit[part.key], 0)),
    ) || 1;
  const parts = [
    `<svg class="cost-bars" id="cost-bars" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="cost per arm by where it went">`,
  ];
  summaries.forEach((summary, row) => {
    const top = 10 + row * rowHeight;
    parts.push(
      `<text class="tick" x="${left - 8}" y="${top + 15}" text-anchor="end">${escapeHtml(summary.arm)}</text>`,
    );
    let offset = 0;
    let total = 0;
    COST_SPLIT_PARTS.forEach((part, position) => {
      const dollars = summary.costSplit[part.key];
      total += dollars;
      const barWidth = (dollars / largest) * plotWidth;
      if (barWidth > 0)
        parts.push(
          `<rect class="cost-part" data-arm="${escapeHtml(summary.arm)}" data-part="${part.key}" x="${(left + offset).toFixed(1)}" y="${top}" width="${barWidth.toFixed(1)}" height="${rowHeight - 8}" fill="${colorOf(position)}"><title>${escapeHtml(`${summary.arm}: ${part.label} $${dollars.toFixed(2)}`)}</title></rect>`,
        );
      offset += barWidth;
    });
    parts.push(`<text class="tick" x="${(left + offset + 6).toFixed(1)}" y="${top + 15}">$${total.toFixed(2)}</text>`);
  });
  const legendTop = 20 + summaries.length * rowHeight;
  for (const item of legend) {
    const y = legendTop + item.row * 16;
    parts.push(
      `<rect x="${item.x}" y="${y}" width="10" height="10" fill="${colorOf(item.position)}"/><text class="tick" x="${item.x + 14}" y="${y + 9}">${escapeHtml(item.label)}</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}
