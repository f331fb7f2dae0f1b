import { escapeHtml } from '../../application/html-escape.ts';
import { NEED_KINDS } from '../replay/needs/need-pieces.ts';
import { armColor } from './arm-colors.ts';
import { costCountSvg } from './cost-count-chart.ts';
import { htmlTable } from './html-table.ts';
import type { LabRun } from './lab-records.ts';
import {
  type CostLossLine,
  costLossLines,
  dollars,
  kindCells,
  NEED_COUNT_HEADER,
  needCountCells,
} from './needs-table.ts';

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
  const chart = {
    className: 'cost-loss-chart',
    ariaLabel: 'cost against needs lost per arm',
    height: 300,
    maxCost: Math.max(0, ...lines.map((line) => line.costWithRecoveryUsd ?? 0)) * 1.1 || 1,
    maxCount: Math.max(1, ...lines.map((line) => line.counts.lost + line.counts.searchable)) * 1.15,
    caption: 'needs lost ↑ (dashed up to lost + merely searchable) · cost → (ring: with recovery billed)',
  };
  return costCountSvg(chart, ({ x, y }) =>
    lines
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
      .join('\n'),
  );
}

function costLossTable(lines: readonly CostLossLine[]): string {
  const head = ['arm', 'cost', 'with recovery', ...NEED_COUNT_HEADER];
  const rows = lines.map((line) => [
    line.name,
    dollars(line.costUsd),
    dollars(line.costWithRecoveryUsd),
    ...needCountCells(line.counts, false),
  ]);
  return htmlTable('cost-split cost-loss', head, rows);
}

function kindTable(lines: readonly CostLossLine[]): string {
  const head = ['arm', ...NEED_KINDS.map((kind) => `${kind}: lost / needs (searchable)`)];
  const rows = lines.map((line) => [line.name, ...kindCells(line)]);
  return htmlTable('cost-split loss-by-kind', head, rows);
}
