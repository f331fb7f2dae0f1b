import { escapeHtml } from '../../application/html-escape.ts';
import type { ArmSummary } from './arm-summary.ts';
import { costCountSvg } from './cost-count-chart.ts';
import { htmlTable } from './html-table.ts';

/** One arm's cost beside what it lost: the figures every lab report leads with. */
export interface CostLossRow {
  readonly arm: string;
  readonly costUsd: number;
  /** Cost ÷ the reference arm's, when the run has it. */
  readonly ratio: number | undefined;
  readonly asked: number;
  /** Answered "unknown", not at all, or wrong. */
  readonly lost: number;
  /** Answered with what a tool asked again says now, which had moved since. */
  readonly stale: number;
  readonly recovered: number;
  readonly recoveryReads: number;
  readonly finished: boolean;
}

/** The rows, one per arm that was asked questions (a replay has none: no rows). */
export function costLossRows(summaries: readonly ArmSummary[], reference: string): CostLossRow[] {
  const referenceCost = summaries.find((summary) => summary.arm === reference)?.costUsd;
  return summaries
    .filter((summary) => summary.probes !== undefined || summary.workingSet !== undefined)
    .map((summary) => {
      const scores = [summary.probes, summary.workingSet];
      const sum = (pick: (score: NonNullable<(typeof scores)[number]>) => number | undefined): number =>
        scores.reduce((total, score) => total + (score === undefined ? 0 : (pick(score) ?? 0)), 0);
      return {
        arm: summary.arm,
        costUsd: summary.costUsd,
        ratio: referenceCost === undefined || referenceCost === 0 ? undefined : summary.costUsd / referenceCost,
        asked: sum((score) => score.asked),
        lost: sum((score) => score.lost),
        stale: sum((score) => score.stale),
        recovered: sum((score) => score.recovered),
        recoveryReads: summary.recovery.reads,
        finished: summary.failure === undefined,
      };
    });
}

const HEADER = ['arm', 'cost', '×ref', 'questions', 'lost', 'stale', 'recovered', 'recovery reads'];

function cells(row: CostLossRow): string[] {
  return [
    row.finished ? row.arm : `${row.arm} (did not finish)`,
    `$${row.costUsd.toFixed(2)}`,
    row.ratio === undefined ? '—' : `${row.ratio.toFixed(2)}×`,
    String(row.asked),
    String(row.lost),
    String(row.stale),
    String(row.recovered),
    String(row.recoveryReads),
  ];
}

/** Cost and loss as an aligned text table, the first thing a lab run prints; empty when no arm was asked anything. */
export function formatCostLossTable(rows: readonly CostLossRow[], reference: string): string[] {
  if (rows.length === 0) return [];
  const header = HEADER.map((cell) => (cell === '×ref' ? `×${reference}` : cell));
  const body = rows.map(cells);
  const widths = header.map((_, column) => Math.max(...[header, ...body].map((row) => row[column]!.length)));
  const render = (row: readonly string[]): string =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('  ');
  return [
    'cost and questions lost (stale: answered from a tool asked again after its state moved)',
    render(header),
    render(widths.map((width) => '-'.repeat(width))),
    ...body.map(render),
  ];
}

/**
 * Arms on cost (across) against questions lost or stale (up), as inline SVG with a numbered
 * legend; the lower left is better. Arms that did not finish are drawn hollow and dashed.
 */
export function costLossChart(rows: readonly CostLossRow[], reference: string): string {
  if (rows.length === 0) return '';
  const chart = {
    className: 'loss-chart',
    ariaLabel: 'cost against questions lost or stale per arm',
    height: 280,
    maxCost: Math.max(0, ...rows.map((row) => row.costUsd)) * 1.1 || 1,
    maxCount: Math.max(1, ...rows.map((row) => row.lost + row.stale)) * 1.1,
    caption: 'questions lost or stale ↑ · cost → (lower left is better)',
  };
  const svg = costCountSvg(chart, ({ x, y }) =>
    rows
      .map((row, position) => {
        const cx = x(row.costUsd).toFixed(1);
        const cy = y(row.lost + row.stale).toFixed(1);
        return `<g class="loss-point ${row.finished ? 'finished' : 'unfinished'}" data-arm="${escapeHtml(row.arm)}"><circle cx="${cx}" cy="${cy}" r="5"/><text x="${(Number(cx) + 7).toFixed(1)}" y="${(Number(cy) - 7 - (position % 2) * 9).toFixed(1)}">${position + 1}</text></g>`;
      })
      .join('\n'),
  );
  const legend = rows
    .map(
      (row, position) =>
        `<li>${position + 1}. ${escapeHtml(row.arm)}: $${row.costUsd.toFixed(2)}${row.ratio === undefined ? '' : ` (${row.ratio.toFixed(2)}× ${escapeHtml(reference)})`} · ${row.lost} lost · ${row.stale} stale of ${row.asked}${row.finished ? '' : ' · did not finish'}</li>`,
    )
    .join('');
  return [svg, `<ol class="loss-legend">${legend}</ol>`].join('\n');
}

/** The cost/loss table as HTML. */
export function costLossHtmlTable(rows: readonly CostLossRow[], reference: string): string {
  if (rows.length === 0) return '';
  const head = HEADER.map((cell) => (cell === '×ref' ? `×${reference}` : cell));
  return htmlTable('cost-loss', head, rows.map(cells));
}
