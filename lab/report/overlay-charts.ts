import { niceTicks } from '../../application/chart-ticks.ts';
import { escapeHtml } from '../../application/html-escape.ts';
import { armColor, PART_PALETTE, REFERENCE_ARMS } from './arm-colors.ts';
import type { ArmSummary } from './arm-summary.ts';
import { COST_SPLIT_PARTS } from './cost-split.ts';
import type { ArmResult, LabRun, RequestRow } from './lab-records.ts';

const WIDTH = 900;
const HEIGHT = 340;
const MARGIN = { left: 84, right: 150, top: 20, bottom: 44 };
/** A horizontal line (budget, price line) this close above the data widens the scale to show it. */
const LINE_REACH = 1.25;

const partColor = (position: number): string => PART_PALETTE[position % PART_PALETTE.length]!;

interface Series {
  readonly arm: string;
  readonly values: readonly number[];
  /** Points (0-based) where the arm's window was rewritten by a commit or replaced by a compaction. */
  readonly marks?: readonly { readonly index: number; readonly kind: 'commit' | 'compaction' }[];
}

interface HorizontalLine {
  readonly value: number;
  readonly className: string;
  readonly label: string;
}

/**
 * Every arm on one set of axes, one polyline per arm with one point per agent request (a
 * native arm's summary calls are not requests of the conversation, so they are not points).
 * The scale is set by the policies, not by the references: a value above the top is drawn at
 * the top and the arm named under the chart, so a fold arm's band is not flattened by the oracle.
 */
function overlaid(
  series: readonly Series[],
  options: {
    readonly id: string;
    readonly label: string;
    readonly axisTitle: string;
    readonly top: number;
    readonly unit: (value: number) => string;
    readonly lines?: readonly HorizontalLine[];
  },
): string {
  const longest = Math.max(1, ...series.map((entry) => entry.values.length));
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const shown = (options.lines ?? []).filter((line) => line.value <= options.top * LINE_REACH);
  const yTicks = niceTicks(Math.max(options.top, ...shown.map((line) => line.value)) * 1.04);
  const top = yTicks[yTicks.length - 1]!;
  const x = (index: number): number => MARGIN.left + (longest <= 1 ? 0 : (index / (longest - 1)) * plotWidth);
  const y = (value: number): number => MARGIN.top + plotHeight - (Math.min(value, top) / top) * plotHeight;
  const parts = [
    `<svg class="overlay-chart" id="${options.id}" xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(options.label)}">`,
    `<rect class="plot" x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}"/>`,
    `<text class="tick y-title" transform="translate(14 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeHtml(options.axisTitle)}</text>`,
  ];
  for (const value of yTicks)
    parts.push(
      `<line class="grid" x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(value).toFixed(1)}" y2="${y(value).toFixed(1)}"/><text class="tick y-tick" x="${MARGIN.left - 6}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${escapeHtml(options.unit(value))}</text>`,
    );
  for (const index of niceTicks(Math.max(1, longest - 1)).filter(
    (tick) => tick <= longest - 1 && Number.isInteger(tick),
  ))
    parts.push(
      `<text class="tick x-tick" x="${x(index).toFixed(1)}" y="${MARGIN.top + plotHeight + 16}" text-anchor="middle">${index}</text>`,
    );
  parts.push(
    `<text class="tick" x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 6}" text-anchor="middle">agent request</text>`,
  );
  for (const line of shown)
    parts.push(
      `<line class="${line.className}" x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y(line.value).toFixed(1)}" y2="${y(line.value).toFixed(1)}"/><text class="${line.className}-label" x="${MARGIN.left + 4}" y="${(y(line.value) - 4).toFixed(1)}">${escapeHtml(line.label)}</text>`,
    );
  series.forEach((entry, position) => {
    const color = armColor(entry.arm, position);
    for (const mark of entry.marks ?? [])
      parts.push(
        `<line class="${mark.kind}-marker" data-arm="${escapeHtml(entry.arm)}" stroke="${color}" x1="${x(mark.index).toFixed(1)}" x2="${x(mark.index).toFixed(1)}" y1="${MARGIN.top + plotHeight}" y2="${MARGIN.top + plotHeight - 10}"><title>${escapeHtml(`${entry.arm}: ${mark.kind} at request ${mark.index}`)}</title></line>`,
      );
    const points = entry.values.map((value, index) => `${x(index).toFixed(1)},${y(value).toFixed(1)}`).join(' ');
    parts.push(
      `<polyline class="arm-series" data-arm="${escapeHtml(entry.arm)}" stroke="${color}" points="${points}"><title>${escapeHtml(entry.arm)}</title></polyline>`,
      `<text class="series-label" x="${MARGIN.left + plotWidth + 8}" y="${MARGIN.top + 14 + position * 16}" fill="${color}">${escapeHtml(entry.arm)}</text>`,
    );
  });
  parts.push('</svg>');
  const clipped = series
    .filter((entry) => entry.values.some((value) => value > top))
    .map((entry) => `${entry.arm} (up to ${options.unit(Math.max(...entry.values))})`);
  const hidden = (options.lines ?? []).filter((line) => !shown.includes(line));
  return [
    parts.join(''),
    chartLegend(options.id, series, shown, hidden),
    clipped.length > 0
      ? `<p class="clipped">Drawn at the top where they run off the scale: ${escapeHtml(clipped.join(', '))}.</p>`
      : '',
  ].join('');
}

/** What every colour and mark of an overlaid chart means, as HTML under it. */
function chartLegend(
  id: string,
  series: readonly Series[],
  shown: readonly HorizontalLine[],
  hidden: readonly HorizontalLine[],
): string {
  const items = series.map(
    (entry, position) =>
      `<li class="legend-arm" data-arm="${escapeHtml(entry.arm)}"><span class="swatch" style="background:${armColor(entry.arm, position)}"></span>${escapeHtml(entry.arm)}</li>`,
  );
  for (const line of shown) items.push(`<li class="legend-line ${line.className}-key">${escapeHtml(line.label)}</li>`);
  for (const line of hidden)
    items.push(`<li class="legend-line off-scale">${escapeHtml(line.label)}: above the chart, not drawn</li>`);
  const kinds = new Set(series.flatMap((entry) => (entry.marks ?? []).map((mark) => mark.kind)));
  if (kinds.has('commit')) items.push('<li class="legend-mark">short tick at the bottom: a fold commit</li>');
  if (kinds.has('compaction')) items.push('<li class="legend-mark">short tick at the bottom: a native compaction</li>');
  return `<ul class="chart-legend" data-chart="${escapeHtml(id)}">${items.join('')}</ul>`;
}

/** The scale policies are read on: the largest value of any non-reference arm, and the floor given. */
function policyTop(series: readonly Series[], floor: number): number {
  const policies = series.filter((entry) => !REFERENCE_ARMS.has(entry.arm));
  const largest = Math.max(0, ...(policies.length > 0 ? policies : series).flatMap((entry) => entry.values));
  return Math.max(largest, floor) || 1;
}

/** An arm's agent requests (summary calls left out), with where each commit or compaction fell among them. */
export function agentRequests(arm: ArmResult): { rows: RequestRow[]; marks: NonNullable<Series['marks']> } {
  const rows = arm.rows.filter((row) => row.purpose !== 'summary');
  const marks = rows.flatMap((row, index) =>
    row.event === 'commit' || row.event === 'compaction' ? [{ index, kind: row.event }] : [],
  );
  return { rows, marks };
}

/** Prompt tokens per agent request of every arm, against the budget and the long-context price line. */
export function overlaidPromptChart(run: LabRun, boundaryTokens: number | undefined): string {
  const series = run.arms.map((arm) => {
    const { rows, marks } = agentRequests(arm);
    return { arm: arm.arm, values: rows.map((row) => row.promptTokens), marks };
  });
  const budget = run.settings.descriptorTokens;
  const lines: HorizontalLine[] = [
    { value: budget, className: 'budget-line', label: `budget ${budget.toLocaleString('en-US')}` },
  ];
  if (boundaryTokens !== undefined && boundaryTokens !== budget)
    lines.push({
      value: boundaryTokens,
      className: 'price-boundary',
      label: `long-context price line ${boundaryTokens.toLocaleString('en-US')}`,
    });
  return overlaid(series, {
    id: 'overlay-prompt',
    label: 'prompt tokens per request, every arm',
    axisTitle: 'prompt tokens',
    top: policyTop(series, budget),
    unit: tokenLabel,
    lines,
  });
}

/** Dollars spent so far after each agent request, every arm on one chart (summary calls counted where they ran). */
export function cumulativeCostChart(run: LabRun): string {
  const series = run.arms.map((arm) => {
    let total = 0;
    const values: number[] = [];
    for (const row of arm.rows) {
      total += row.costUsd;
      if (row.purpose !== 'summary') values.push(total);
    }
    return { arm: arm.arm, values, marks: agentRequests(arm).marks };
  });
  return overlaid(series, {
    id: 'overlay-cost',
    label: 'cumulative dollars per request, every arm',
    axisTitle: 'dollars so far',
    top: policyTop(series, 0),
    unit: (value) => `$${value.toFixed(value < 10 ? 2 : 0)}`,
  });
}

/** Tokens as an axis label: 0, 500, 50k, 1.5M. */
export function tokenLabel(tokens: number): string {
  if (tokens >= 1_000_000) return `${Number((tokens / 1_000_000).toFixed(2))}M`;
  if (tokens >= 1_000) return `${Number((tokens / 1_000).toFixed(1))}k`;
  return String(Math.round(tokens));
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
          `<rect class="cost-part" data-arm="${escapeHtml(summary.arm)}" data-part="${part.key}" x="${(left + offset).toFixed(1)}" y="${top}" width="${barWidth.toFixed(1)}" height="${rowHeight - 8}" fill="${partColor(position)}"><title>${escapeHtml(`${summary.arm}: ${part.label} $${dollars.toFixed(2)}`)}</title></rect>`,
        );
      offset += barWidth;
    });
    parts.push(`<text class="tick" x="${(left + offset + 6).toFixed(1)}" y="${top + 15}">$${total.toFixed(2)}</text>`);
  });
  const legendTop = 20 + summaries.length * rowHeight;
  for (const item of legend) {
    const y = legendTop + item.row * 16;
    parts.push(
      `<rect x="${item.x}" y="${y}" width="10" height="10" fill="${partColor(item.position)}"/><text class="tick" x="${item.x + 14}" y="${y + 9}">${escapeHtml(item.label)}</text>`,
    );
  }
  parts.push('</svg>');
  return parts.join('');
}
