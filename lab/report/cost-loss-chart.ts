import { escapeHtml } from '../../application/html-escape.ts';
import { NEED_KINDS } from '../replay/needs/need-pieces.ts';
import { armColor } from './arm-colors.ts';
import type { LabRun } from './lab-records.ts';
import { type CostLossLine, costLossLines } from './needs-table.ts';

const WIDTH = 760;
const HEIGHT = 300;
const MARGIN = { left: 70, right: 24, top: 24, bottom: 40 };

/**
 * The section a replay's HTML report leads with: a chart of the arms on cost (across) against
 * needs lost (up), a hollow ring beside each arm's point at its cost with recovery billed and
 * its merely searchable needs as a lighter mark, then the table of cost and loss and the
 * losses by kind. Empty for a run that scored no needs.
 */
export function costLossSection(run: LabRun): string {
  const lines = costLossLines(run);
  if (lines.length === 0) return '';
  const armLines = lines.filter((line) => line.costUsd !== undefined);
  return [
    '<h2 id="cost-and-loss">Cost and needs lost</h2>',
    `<p>A need is a later use, by the recorded model, of an exact piece (a path, a command, a number, an identifier, an error line) that only a tool had given it: ${lines[0]!.counts.needs} needs, ${run.needs?.distinctPieces ?? 0} distinct pieces. Each is scored at the request that used it, in each arm's own window.</p>`,
    armLines.length === 0 ? '' : costLossChart(armLines),
    costLossTable(lines),
    kindTable(lines),
  ].join('\n');
}

function costLossChart(lines: readonly CostLossLine[]): string {
  const maxCost = Math.max(0, ...lines.map((line) => line.costWithRecoveryUsd ?? 0)) * 1.1 || 1;
  const maxLost = Math.max(1, ...lines.map((line) => line.counts.lost + line.counts.searchable)) * 1.15;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (cost: number): number => MARGIN.left + (cost / maxCost) * plotWidth;
  const y = (count: number): number => MARGIN.top + plotHeight - (count / maxLost) * plotHeight;
  const marks = lines
    .map((line, position) => {
      const color = armColor(line.name, position);
      const cx = x(line.costUsd!).toFixed(1);
      const cy = y(line.counts.lost).toFixed(1);
      const withRecovery = x(line.costWithRecoveryUsd!).toFixed(1);
      const searchable = y(line.counts.lost + line.counts.searchable).toFixed(1);
      return [
        `<g class="loss-point" data-arm="${escapeHtml(line.name)}">`,
        `<line x1="${cx}" x2="${cx}" y1="${cy}" y2="${searchable}" stroke="${color}" stroke-dasharray="3 3"/>`,
        `<circle cx="${withRecovery}" cy="${cy}" r="7" fill="none" stroke="${color}"/>`,
        `<circle cx="${cx}" cy="${cy}" r="5" fill="${color}"/>`,
        `<text x="${(Number(cx) + 9).toFixed(1)}" y="${(Number(cy) - 8 - (position % 2) * 10).toFixed(1)}">${escapeHtml(line.name)}</text>`,
        '</g>',
      ].join('');
    })
    .join('\n');
  return [
    `<svg class="cost-loss-chart" xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="cost against needs lost per arm">`,
    `<rect class="plot" x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}"/>`,
    `<text class="tick" x="${MARGIN.left}" y="${HEIGHT - 10}">$0</text>`,
    `<text class="tick" x="${WIDTH - MARGIN.right}" y="${HEIGHT - 10}" text-anchor="end">cost $${maxCost.toFixed(2)}</text>`,
    `<text class="tick" x="${MARGIN.left - 6}" y="${MARGIN.top + 10}" text-anchor="end">${Math.round(maxLost)}</text>`,
    `<text class="tick" x="${MARGIN.left - 6}" y="${MARGIN.top + plotHeight}" text-anchor="end">0</text>`,
    `<text class="tick" x="${MARGIN.left + 4}" y="${MARGIN.top - 8}">needs lost ↑ (dashed up to lost + merely searchable) · cost → (ring: with recovery billed)</text>`,
    marks,
    '</svg>',
  ].join('\n');
}

const dollars = (value: number | undefined): string => (value === undefined ? '—' : `$${value.toFixed(2)}`);

function costLossTable(lines: readonly CostLossLine[]): string {
  const head = [
    'arm',
    'cost',
    'with recovery',
    'needs lost',
    'needs',
    'visible',
    'one call away',
    're-obtainable',
    'searchable',
    'not reached',
  ];
  const rows = lines.map((line) => [
    line.name,
    dollars(line.costUsd),
    dollars(line.costWithRecoveryUsd),
    String(line.counts.lost),
    String(line.counts.needs),
    String(line.counts.visible),
    String(line.counts.oneCallAway),
    String(line.counts.reobtainable),
    String(line.counts.searchable),
    String(line.counts.notReached),
  ]);
  return htmlTable('cost-loss', head, rows);
}

function kindTable(lines: readonly CostLossLine[]): string {
  const head = ['arm', ...NEED_KINDS.map((kind) => `${kind}: lost / needs (searchable)`)];
  const rows = lines.map((line) => [
    line.name,
    ...NEED_KINDS.map(
      (kind) => `${line.byKind[kind].lost} / ${line.byKind[kind].needs} (${line.byKind[kind].searchable})`,
    ),
  ]);
  return htmlTable('loss-by-kind', head, rows);
}

function htmlTable(className: string, head: readonly string[], rows: readonly (readonly string[])[]): string {
  const cells = (row: readonly string[], tag: 'th' | 'td'): string =>
    `<tr>${row.map((cell) => `<${tag}>${escapeHtml(cell)}</${tag}>`).join('')}</tr>`;
  return `<table class="cost-split ${className}">${cells(head, 'th')}${rows.map((row) => cells(row, 'td')).join('')}</table>`;
}
