import { escapeHtml } from '../../application/html-escape.ts';
import { type ArmSummary, summarizeArm } from './arm-summary.ts';
import { armTableGrid } from './arm-table.ts';
import { bytesLostLine } from './bytes-lost.ts';
import { costRecoveryFront } from './cost-front.ts';
import { priceListOf } from './cost-split.ts';
import { costSplitTable, frontChart } from './front-chart.ts';
import type { ArmResult, LabRun, LabRunSettings } from './lab-records.ts';
import { costStackedBars, cumulativeCostChart, overlaidPromptChart } from './overlay-charts.ts';

const CHART_WIDTH = 760;
const CHART_HEIGHT = 260;
const MARGIN = { left: 70, right: 16, top: 16, bottom: 30 };

/** The long-context boundary of the run's price list, if it has one. */
export function priceBoundaryTokens(settings: Pick<LabRunSettings, 'priceList' | 'prices'>): number | undefined {
  return priceListOf(settings).longContext?.aboveTokens;
}

/**
 * One inline SVG chart: prompt tokens per request (refused requests as red marks), with the
 * budget (descriptor) line and the price boundary drawn across. No script, no network.
 */
export function requestSizeChart(
  arm: ArmResult,
  budgetTokens: number,
  boundaryTokens: number | undefined,
  scaleTokens = 0,
): string {
  const peak = arm.rows.reduce((largest, row) => Math.max(largest, row.promptTokens), 0);
  const top = Math.max(peak, budgetTokens, boundaryTokens ?? 0, scaleTokens) * 1.08 || 1;
  const plotWidth = CHART_WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = CHART_HEIGHT - MARGIN.top - MARGIN.bottom;
  const x = (index: number): number =>
    MARGIN.left + (arm.rows.length <= 1 ? plotWidth / 2 : (index / (arm.rows.length - 1)) * plotWidth);
  const y = (tokens: number): number => MARGIN.top + plotHeight - (tokens / top) * plotHeight;
  const points = arm.rows.map((row, index) => `${x(index).toFixed(1)},${y(row.promptTokens).toFixed(1)}`).join(' ');
  const refused = arm.rows
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
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((fraction) => {
      const tokens = Math.round(top * fraction);
      return `<text class="tick" x="${MARGIN.left - 6}" y="${(y(tokens) + 4).toFixed(1)}" text-anchor="end">${Math.round(tokens / 1000)}k</text>`;
    })
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
    ticks,
    `<text class="tick" x="${MARGIN.left}" y="${CHART_HEIGHT - 8}">request 0</text>`,
    `<text class="tick" x="${CHART_WIDTH - MARGIN.right}" y="${CHART_HEIGHT - 8}" text-anchor="end">request ${Math.max(0, arm.rows.length - 1)}</text>`,
    horizontal(budgetTokens, 'budget-line', `budget ${budgetTokens.toLocaleString('en-US')}`, 'end'),
    boundary,
    `<polyline class="prompt-size" points="${points}"/>`,
    refused,
    '</svg>',
  ].join('\n');
}

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222}
pre{background:#f6f6f6;padding:12px;overflow-x:auto}
.plot{fill:#fcfcfc;stroke:#ccc}.tick{font-size:11px;fill:#666}
.prompt-size{fill:none;stroke:#2563eb;stroke-width:1.2}
.budget-line{stroke:#16a34a;stroke-dasharray:6 4}.budget-line-label{font-size:11px;fill:#16a34a}
.price-boundary{stroke:#dc2626;stroke-dasharray:2 3}.price-boundary-label{font-size:11px;fill:#dc2626}
.rejected{fill:#dc2626}
.front-line{fill:none;stroke:#16a34a;stroke-width:1.5}.front-point text{font-size:11px;fill:#333}
.front-legend{list-style:none;padding-left:0}.front-legend .on-front{font-weight:600}.on-front circle{fill:#16a34a}.off-front circle{fill:#fff;stroke:#666}.unfinished circle,.reference circle{fill:#fff;stroke:#dc2626;stroke-dasharray:2 2}
table.cost-split,table.arms{border-collapse:collapse}.cost-split th,.cost-split td,.arms th,.arms td{border:1px solid #ddd;padding:2px 8px;text-align:right}
.arms td:first-child,.arms th:first-child{text-align:left}.arms .ratio{color:#666}.arms tbody tr:hover{background:#f3f6ff}
.arm-series{fill:none;stroke-width:1.3}.series-label{font-size:12px}.clipped{color:#666;font-size:12px}`;

/** The arm table as a real table: one column per arm and one for its ratio against native. */
function htmlArmTable(run: LabRun): string {
  const { header, body } = armTableGrid(run);
  const cell = (text: string, column: number, tag: 'td' | 'th') =>
    `<${tag}${column > 0 && column % 2 === 0 ? ' class="ratio"' : ''}>${escapeHtml(text.trim())}</${tag}>`;
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

/** A self-contained HTML report: settings, notes, measurements, the table, one chart per arm. */
export function renderHtmlReport(
  run: LabRun,
  table: string,
  options: { title: string; notes: readonly string[]; measurements: Readonly<Record<string, string | number>> },
): string {
  const boundary = priceBoundaryTokens(run.settings);
  const measurements = Object.entries(options.measurements);
  // One scale for every chart, so arms compare at a glance.
  const scale = Math.max(0, ...run.arms.flatMap((arm) => arm.rows.map((row) => row.promptTokens)));
  const summaries = run.arms.map((arm) => summarizeArm(arm, priceListOf(run.settings)));
  const scored = summaries.some((summary) => summary.probes !== undefined);
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<title>${escapeHtml(options.title)}</title>`,
    `<style>${STYLE}</style></head><body>`,
    `<h1>${escapeHtml(options.title)}</h1>`,
    options.notes.length > 0
      ? `<ul class="notes">${options.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`
      : '',
    htmlArmTable(run),
    bytesLostList(summaries),
    `<details><summary>The same table as text, with the run's settings and notes</summary><pre class="arm-table">${escapeHtml(table)}</pre></details>`,
    measurements.length > 0
      ? `<h2>Measurements of this machine (not reproducible bytes)</h2><ul class="measurements">${measurements.map(([name, value]) => `<li>${escapeHtml(name)}: ${escapeHtml(String(value))}</li>`).join('')}</ul>`
      : '',
    '<h2>Prompt tokens per request, every arm</h2>',
    overlaidPromptChart(run, boundary),
    '<h2>Dollars spent so far, every arm</h2>',
    cumulativeCostChart(run),
    '<h2>Where each dollar went</h2>',
    costStackedBars(summaries),
    costSplitTable(summaries),
    scored
      ? `<h2>Cost against recovery reads</h2>\n${frontChart(costRecoveryFront(summaries, run.settings.providerCapTokens), new Set(run.arms.filter((arm) => arm.rows.length > 0).map((arm) => arm.arm)))}`
      : '',
    '<h2>Prompt tokens per request, one arm at a time</h2>',
    ...run.arms.map(
      (arm) =>
        `<section class="arm"><h3>${escapeHtml(arm.arm)} — ${arm.rows.length} requests</h3>\n${requestSizeChart(arm, run.settings.descriptorTokens, boundary, scale)}</section>`,
    ),
    '</body></html>',
    '',
  ].join('\n');
}
