import { niceTicks } from '../../application/chart-ticks.ts';
import { escapeHtml } from '../../application/html-escape.ts';
import { armColor } from './arm-colors.ts';
import { type ArmSummary, summarizeArm } from './arm-summary.ts';
import { armTableGrid } from './arm-table.ts';
import { boundLines } from './bound-line.ts';
import { bytesLostLine } from './bytes-lost.ts';
import { costRecoveryFront } from './cost-front.ts';
import { costLossChart, costLossHtmlTable, costLossRows } from './cost-loss.ts';
import { costLossSection as needsLostSection } from './cost-loss-chart.ts';
import { priceListOf } from './cost-split.ts';
import { costSplitTable, frontChart } from './front-chart.ts';
import type { ArmResult, LabRun, LabRunSettings } from './lab-records.ts';
import {
  agentRequests,
  costStackedBars,
  cumulativeCostChart,
  overlaidPromptChart,
  tokenLabel,
} from './overlay-charts.ts';
import { headlineSentence, recordedVersusNative, type ViewerLink, viewerLinks } from './report-headline.ts';

const CHART_WIDTH = 760;
const CHART_HEIGHT = 260;
const MARGIN = { left: 76, right: 16, top: 16, bottom: 30 };

/** The long-context boundary of the run's price list, if it has one. */
export function priceBoundaryTokens(settings: Pick<LabRunSettings, 'priceList' | 'prices'>): number | undefined {
  return priceListOf(settings).longContext?.aboveTokens;
}

/**
 * One inline SVG chart: prompt tokens per agent request (refused requests as red marks, each
 * commit or compaction as a tick at the bottom), with the budget (descriptor) line and the
 * price boundary drawn across, in the arm's own colour. No script, no network.
 */
export function requestSizeChart(
  arm: ArmResult,
  budgetTokens: number,
  boundaryTokens: number | undefined,
  scaleTokens = 0,
  position = 0,
): string {
  const { rows, marks } = agentRequests(arm);
  const peak = rows.reduce((largest, row) => Math.max(largest, row.promptTokens), 0);
  const ticks = niceTicks(Math.max(peak, budgetTokens, boundaryTokens ?? 0, scaleTokens) * 1.04);
  const top = ticks[ticks.length - 1]!;
  const plotWidth = CHART_WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = CHART_HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (index: number): number =>
    MARGIN.left + (rows.length <= 1 ? plotWidth / 2 : (index / (rows.length - 1)) * plotWidth);
  const y = (tokens: number): number => MARGIN.top + plotHeight - (tokens / top) * plotHeight;
  const color = armColor(arm.arm, position);
  const points = rows.map((row, index) => `${x(index).toFixed(1)},${y(row.promptTokens).toFixed(1)}`).join(' ');
  const refused = rows
    .map((row, index) =>
      row.rejected
        ? `<circle class="rejected" cx="${x(index).toFixed(1)}" cy="${y(row.promptTokens).toFixed(1)}" r="3"/>`
        : '',
    )
    .join('');
  // The budget is labelled at the right end, the boundary at the left: by default both sit at 272k.
  const horizontal = (tokens: number, className: string, label: string, side: 'start' | 'end'): string =>
    `<line class="${className}" x1="${MARGIN.left}" x2="${CHART_WIDTH - MARGIN.right}" y1="${y(tokens).toFixed(1)}" y2="${y(tokens).toFixed(1)}"/>` +
    `<text class="${className}-label" x="${side === 'end' ? CHART_WIDTH - MARGIN.right - 4 : MARGIN.left + 4}" y="${(y(tokens) - 4).toFixed(1)}" text-anchor="${side}">${escapeHtml(label)}</text>`;
  const yTicks = ticks
    .map(
      (tokens) =>
        `<text class="tick" x="${MARGIN.left - 6}" y="${(y(tokens) + 4).toFixed(1)}" text-anchor="end">${tokenLabel(tokens)}</text>`,
    )
    .join('');
  const xTicks = niceTicks(Math.max(1, rows.length - 1))
    .filter((index) => index <= rows.length - 1 && Number.isInteger(index))
    .map(
      (index) =>
        `<text class="tick x-tick" x="${x(index).toFixed(1)}" y="${CHART_HEIGHT - 8}" text-anchor="middle">${index}</text>`,
    )
    .join('');
  const markers = marks
    .map(
      (mark) =>
        `<line class="${mark.kind}-marker" stroke="${color}" x1="${x(mark.index).toFixed(1)}" x2="${x(mark.index).toFixed(1)}" y1="${MARGIN.top + plotHeight}" y2="${MARGIN.top + plotHeight - 10}"><title>${mark.kind} at request ${mark.index}</title></line>`,
    )
    .join('');
  const boundary =
    boundaryTokens === undefined
      ? '<text class="tick" x="80" y="28">price list has no long-context boundary</text>'
      : horizontal(
          boundaryTokens,
          'price-boundary',
          `long-context price boundary ${boundaryTokens.toLocaleString('en-US')}`,
          'start',
        );
  return [
    `<svg class="request-chart" data-arm="${escapeHtml(arm.arm)}" xmlns="http://www.w3.org/2000/svg" width="${CHART_WIDTH}" height="${CHART_HEIGHT}" viewBox="0 0 ${CHART_WIDTH} ${CHART_HEIGHT}" role="img" aria-label="prompt tokens per request, ${escapeHtml(arm.arm)}">`,
    `<rect class="plot" x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}"/>`,
    `<text class="tick y-title" transform="translate(12 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">prompt tokens</text>`,
    yTicks,
    xTicks,
    horizontal(budgetTokens, 'budget-line', `budget ${budgetTokens.toLocaleString('en-US')}`, 'end'),
    boundary,
    markers,
    `<polyline class="prompt-size" points="${points}" stroke="${color}"/>`,
    refused,
    '</svg>',
  ].join('\n');
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
svg{max-width:100%;height:auto}table.cost-split{display:block;max-width:100%;overflow-x:auto}
pre{background:#f6f6f6;padding:12px;overflow-x:auto}
.plot{fill:#fcfcfc;stroke:#ccc}.tick{font-size:11px;fill:#666}
.prompt-size{fill:none;stroke-width:1.2}.grid{stroke:#eee}.commit-marker,.compaction-marker{stroke-width:1.5}
.budget-line{stroke:#16a34a;stroke-dasharray:6 4}.budget-line-label{font-size:11px;fill:#16a34a}
.price-boundary{stroke:#dc2626;stroke-dasharray:2 3}.price-boundary-label{font-size:11px;fill:#dc2626}
.rejected{fill:#dc2626}
.cost-loss td,.cost-loss th{padding:2px 8px;text-align:right}.cost-loss td:first-child,.cost-loss th:first-child{text-align:left}
.loss-point circle{fill:#2563eb}.loss-point.unfinished circle{fill:#fff;stroke:#dc2626;stroke-dasharray:2 2}.loss-point text{font-size:11px;fill:#333}.loss-legend{list-style:none;padding-left:0}
.front-line{fill:none;stroke:#16a34a;stroke-width:1.5}.front-point text{font-size:11px;fill:#333}
.front-legend{list-style:none;padding-left:0}.front-legend .on-front{font-weight:600}.on-front circle{fill:#16a34a}.off-front circle{fill:#fff;stroke:#666}.unfinished circle,.reference circle{fill:#fff;stroke:#dc2626;stroke-dasharray:2 2}
table.cost-split,table.arms{border-collapse:collapse}.cost-split th,.cost-split td,.arms th,.arms td{border:1px solid #ddd;padding:2px 8px;text-align:right}
.arms td:first-child,.arms th:first-child{text-align:left}.arms .ratio{color:#666}.arms tbody tr:hover{background:#f3f6ff}
.arm-series{fill:none;stroke-width:1.3}.series-label{font-size:12px}.clipped{color:#666;font-size:12px}
.headline{font-size:17px;margin:8px 0 12px}.chart-legend{list-style:none;padding:0;margin:4px 0 12px;font-size:12px;color:#444}.chart-legend li{display:inline-block;margin-right:14px}
.swatch{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-1px}.budget-line-key{color:#16a34a}.price-boundary-key{color:#dc2626}.off-scale{color:#888}
.arms td.sub{padding-left:26px;color:#555}.recorded-vs-native{max-width:760px;color:#333}.viewer-links{padding-left:18px}`;

/** The arm table as a real table: one column per arm and one for its ratio against native. */
function htmlArmTable(run: LabRun): string {
  const { header, body } = armTableGrid(run);
  // A label indented in the text table is a part of the row above it: indented here too.
  const cell = (text: string, column: number, tag: 'td' | 'th') => {
    const className = column === 0 && text.startsWith('  ') ? 'sub' : column > 0 && column % 2 === 0 ? 'ratio' : '';
    return `<${tag}${className === '' ? '' : ` class="${className}"`}>${escapeHtml(text.trim())}</${tag}>`;
  };
  return `<table class="arms"><thead><tr>${header.map((text, column) => cell(text, column, 'th')).join('')}</tr></thead><tbody>${body.map((row) => `<tr>${row.map((text, column) => cell(text, column, 'td')).join('')}</tr>`).join('')}</tbody></table>`;
}

/** Each arm's bytes lost in words, under the table: the replay target's "0 bytes lost" where a reader looks first. */
function bytesLostList(summaries: readonly ArmSummary[]): string {
  const lines = summaries.flatMap((summary) =>
    summary.bytes === undefined ? [] : [bytesLostLine(summary.arm, summary.bytes)],
  );
  return lines.length === 0
    ? ''
    : `<ul class="bytes-lost">${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`;
}

/**
 * A self-contained HTML report that leads with the answer: one sentence and one chart (the
 * arms' prompt sizes against the budget and price line), why the recorded and native costs
 * differ, the viewer of what was folded; then the dollars, the table, the notes and each arm.
 */
export function renderHtmlReport(
  run: LabRun,
  table: string,
  options: {
    title: string;
    notes: readonly string[];
    measurements: Readonly<Record<string, string | number>>;
    viewerLinks?: readonly ViewerLink[];
  },
): string {
  const boundary = priceBoundaryTokens(run.settings);
  const measurements = Object.entries(options.measurements);
  // One scale for every chart, so arms compare at a glance.
  const scale = Math.max(0, ...run.arms.flatMap((arm) => agentRequests(arm).rows.map((row) => row.promptTokens)));
  const summaries = run.arms.map((arm) => summarizeArm(arm, priceListOf(run.settings)));
  const scored = summaries.some((summary) => summary.probes !== undefined);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(options.title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(options.title)}</h1>`,
    `<p class="headline" id="headline">${escapeHtml(headlineSentence(summaries))}</p>`,
    // A replay scores needs; a lab scores its questions. Each report leads with the one it has.
    run.needs !== undefined ? needsLostSection(run) : questionsLostSection(summaries, run.reference ?? 'native'),
    overlaidPromptChart(run, boundary),
    recordedVersusNative(options.notes, summaries),
    viewerLinks(options.viewerLinks ?? []),
    '<h2>Dollars spent so far, every arm</h2>',
    cumulativeCostChart(run),
    '<h2>Where each dollar went</h2>',
    costStackedBars(summaries),
    costSplitTable(summaries),
    scored
      ? `<h2>Cost against recovery reads</h2>\n${frontChart(costRecoveryFront(summaries, run.settings.providerCapTokens), new Set(run.arms.filter((arm) => arm.rows.length > 0).map((arm) => arm.arm)))}`
      : '',
    '<h2>Every measure, arm by arm</h2>',
    htmlArmTable(run),
    run.bound === undefined
      ? ''
      : `<ul class="bound" id="bound">${boundLines(run.bound, summaries)
          .map((line) => `<li>${escapeHtml(line.trim())}</li>`)
          .join('')}</ul>`,
    bytesLostList(summaries),
    `<details><summary>The same table as text, with the run's settings and notes</summary><pre class="arm-table">${escapeHtml(table)}</pre></details>`,
    options.notes.length > 0
      ? `<h2>Notes</h2><ul class="notes">${options.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`
      : '',
    measurements.length > 0
      ? `<h2>Measurements of this machine (not reproducible bytes)</h2><ul class="measurements">${measurements.map(([name, value]) => `<li>${escapeHtml(name)}: ${escapeHtml(String(value))}</li>`).join('')}</ul>`
      : '',
    '<h2>Prompt tokens per request, one arm at a time</h2>',
    ...run.arms.map(
      (arm, position) =>
        `<section class="arm"><h3>${escapeHtml(arm.arm)} — ${agentRequests(arm).rows.length} requests</h3>\n${requestSizeChart(arm, run.settings.descriptorTokens, boundary, scale, position)}</section>`,
    ),
    '</body></html>',
    '',
  ].join('\n');
}

/** Cost and questions lost, first after the headline: a table and the arms on cost against loss (nothing for a replay). */
function questionsLostSection(summaries: Parameters<typeof costLossRows>[0], reference: string): string {
  const rows = costLossRows(summaries, reference);
  if (rows.length === 0) return '';
  return `<h2 id="cost-and-loss">Cost and questions lost</h2>\n${costLossHtmlTable(rows, reference)}\n${costLossChart(rows, reference)}`;
}
