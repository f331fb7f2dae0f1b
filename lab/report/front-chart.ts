import { escapeHtml } from '../../application/html-escape.ts';
import type { ArmSummary } from './arm-summary.ts';
import type { CostRecoveryFront, FrontPoint } from './cost-front.ts';
import { COST_SPLIT_PARTS } from './cost-split.ts';
import { htmlTable } from './html-table.ts';

const WIDTH = 760;
const HEIGHT = 300;
const MARGIN = { left: 70, right: 24, top: 20, bottom: 40 };

/**
 * The cost/recovery plane as inline SVG: one numbered point per arm that sent requests (cost
 * across, recovery reads up on a square-root scale so the few reads of careful arms stay apart),
 * arms on the front filled and joined in cost order, arms off it hollow, arms that stopped
 * early or went above the provider's cap (references) dashed. A numbered legend names each
 * point (labels beside points would overlap where arms cost alike); the default's statement
 * is the caption.
 */
export function frontChart(front: CostRecoveryFront, ranArms: ReadonlySet<string>): string {
  const points = front.points.filter((point) => ranArms.has(point.arm));
  const maxCost = Math.max(0, ...points.map((point) => point.costUsd)) * 1.1 || 1;
  const maxReads = Math.max(1, ...points.map((point) => point.recoveryReads)) * 1.15;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (cost: number): number => MARGIN.left + (cost / maxCost) * plotWidth;
  const y = (reads: number): number => MARGIN.top + plotHeight - Math.sqrt(reads / maxReads) * plotHeight;
  const onFront = points.filter((point) => point.onFront).sort((a, b) => a.costUsd - b.costUsd);
  const line = onFront.map((point) => `${x(point.costUsd).toFixed(1)},${y(point.recoveryReads).toFixed(1)}`).join(' ');
  const classOf = (point: FrontPoint): string =>
    !point.finished ? 'unfinished' : !point.withinCap ? 'reference' : point.onFront ? 'on-front' : 'off-front';
  const marks = points
    .map((point, position) => {
      const cx = x(point.costUsd).toFixed(1);
      const cy = y(point.recoveryReads).toFixed(1);
      return `<g class="front-point ${classOf(point)}" data-arm="${escapeHtml(point.arm)}"><circle cx="${cx}" cy="${cy}" r="5"/><text x="${(Number(cx) + 7).toFixed(1)}" y="${(Number(cy) - 7 - (position % 2) * 9).toFixed(1)}">${position + 1}</text></g>`;
    })
    .join('\n');
  const legend = points
    .map((point, position) => {
      const why = !point.finished
        ? 'did not finish'
        : !point.withinCap
          ? 'above the cap: reference'
          : point.onFront
            ? 'on the front'
            : `off the front (beaten by ${point.dominatedBy})`;
      return `<li class="${classOf(point)}">${position + 1}. ${escapeHtml(point.arm)}: $${point.costUsd.toFixed(2)} · ${point.recoveryReads} recovery reads · ${point.lost} lost · ${escapeHtml(why)}</li>`;
    })
    .join('');
  return [
    `<svg class="front-chart" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="cost against recovery reads per arm">`,
    `<rect class="plot" x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}"/>`,
    `<text class="tick" x="${MARGIN.left}" y="${HEIGHT - 10}">$0</text>`,
    `<text class="tick" x="${WIDTH - MARGIN.right}" y="${HEIGHT - 10}" text-anchor="end">cost $${maxCost.toFixed(2)}</text>`,
    `<text class="tick" x="${MARGIN.left - 6}" y="${MARGIN.top + 10}" text-anchor="end">${Math.round(maxReads)} reads</text>`,
    `<text class="tick" x="${MARGIN.left - 6}" y="${MARGIN.top + plotHeight}" text-anchor="end">0</text>`,
    `<text class="tick" x="${MARGIN.left + 4}" y="${MARGIN.top - 6}">recovery reads ↑ (square-root scale) · cost →</text>`,
    onFront.length > 1 ? `<polyline class="front-line" points="${line}"/>` : '',
    marks,
    '</svg>',
    `<ol class="front-legend">${legend}</ol>`,
    `<p class="front-statement">${escapeHtml(front.statement)}</p>`,
  ].join('\n');
}

/** Where each dollar went, one row per arm, as an HTML table. */
export function costSplitTable(summaries: readonly ArmSummary[]): string {
  const head = ['arm', 'cost', ...COST_SPLIT_PARTS.map((part) => part.label), 'recovery reads', 'recovery dollars'];
  const rows = summaries.map((summary) => [
    summary.arm,
    `$${summary.costUsd.toFixed(2)}`,
    ...COST_SPLIT_PARTS.map(({ key }) => `$${summary.costSplit[key].toFixed(2)}`),
    String(summary.recovery.reads),
    `$${summary.recovery.usd.toFixed(2)}`,
  ]);
  return htmlTable('cost-split', head, rows);
}
