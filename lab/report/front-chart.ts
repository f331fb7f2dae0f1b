import type { ArmSummary } from './arm-summary.ts';
import type { CostRecoveryFront } from './cost-front.ts';
import { COST_SPLIT_PARTS } from './cost-split.ts';
import { escapeHtml } from './html-escape.ts';

const WIDTH = 760;
const HEIGHT = 300;
const MARGIN = { left: 70, right: 24, top: 20, bottom: 40 };

/**
 * The cost/recovery plane as inline SVG: one point per arm (cost across, recovery reads up),
 * arms on the front filled and joined in cost order, arms off it hollow, arms that stopped
 * early or went above the provider's cap (references) dashed. The default's statement is the caption.
 */
export function frontChart(front: CostRecoveryFront): string {
  const points = front.points;
  const maxCost = Math.max(0, ...points.map((point) => point.costUsd)) * 1.1 || 1;
  const maxReads = Math.max(1, ...points.map((point) => point.recoveryReads)) * 1.15;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (cost: number): number => MARGIN.left + (cost / maxCost) * plotWidth;
  const y = (reads: number): number => MARGIN.top + plotHeight - (reads / maxReads) * plotHeight;
  const onFront = points.filter((point) => point.onFront).sort((a, b) => a.costUsd - b.costUsd);
  const line = onFront.map((point) => `${x(point.costUsd).toFixed(1)},${y(point.recoveryReads).toFixed(1)}`).join(' ');
  const marks = points
    .map((point) => {
      const cx = x(point.costUsd).toFixed(1);
      const cy = y(point.recoveryReads).toFixed(1);
      const className = !point.finished ? 'unfinished' : !point.withinCap ? 'reference' : point.onFront ? 'on-front' : 'off-front';
      const why = !point.finished ? ' · did not finish' : !point.withinCap ? ' · above the cap: reference' : '';
      const label = `${point.arm} $${point.costUsd.toFixed(2)} · ${point.recoveryReads} reads · ${point.lost} lost${why}`;
      return `<g class="front-point ${className}" data-arm="${escapeHtml(point.arm)}"><circle cx="${cx}" cy="${cy}" r="5"/><text x="${(Number(cx) + 8).toFixed(1)}" y="${(Number(cy) - 6).toFixed(1)}">${escapeHtml(label)}</text></g>`;
    })
    .join('\n');
  return [
    `<svg class="front-chart" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="cost against recovery reads per arm">`,
    `<rect class="plot" x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}"/>`,
    `<text class="tick" x="${MARGIN.left}" y="${HEIGHT - 10}">$0</text>`,
    `<text class="tick" x="${WIDTH - MARGIN.right}" y="${HEIGHT - 10}" text-anchor="end">cost $${maxCost.toFixed(2)}</text>`,
    `<text class="tick" x="${MARGIN.left - 6}" y="${MARGIN.top + 10}" text-anchor="end">${Math.round(maxReads)} reads</text>`,
    `<text class="tick" x="${MARGIN.left - 6}" y="${MARGIN.top + plotHeight}" text-anchor="end">0</text>`,
    onFront.length > 1 ? `<polyline class="front-line" points="${line}"/>` : '',
    marks,
    '</svg>',
    `<p class="front-statement">${escapeHtml(front.statement)}</p>`,
  ].join('\n');
}

/** Where each dollar went, one row per arm, as an HTML table. */
export function costSplitTable(summaries: readonly ArmSummary[]): string {
  const head = ['arm', 'cost', ...COST_SPLIT_PARTS.map((part) => part.label), 'recovery reads', 'recovery dollars'];
  const rows = summaries.map((summary) => [summary.arm, `$${summary.costUsd.toFixed(2)}`, ...COST_SPLIT_PARTS.map(({ key }) => `$${summary.costSplit[key].toFixed(2)}`), String(summary.recovery.reads), `$${summary.recovery.usd.toFixed(2)}`]);
  const cells = (row: readonly string[], tag: 'th' | 'td'): string => `<tr>${row.map((cell) => `<${tag}>${escapeHtml(cell)}</${tag}>`).join('')}</tr>`;
  return `<table class="cost-split">${cells(head, 'th')}${rows.map((row) => cells(row, 'td')).join('')}</table>`;
}
