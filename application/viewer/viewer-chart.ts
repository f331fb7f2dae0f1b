import type { RequestLogCommitV1, RequestLogRequestV1 } from '../../ports/request-log.ts';
import { escapeHtml } from '../html-escape.ts';

/** A logged value as page text: a request log carries no checksum, so no field is trusted to be a number. */
const text = (value: unknown): string => escapeHtml(String(value));

const WIDTH = 960;
const HEIGHT = 320;
const MARGIN = { left: 70, right: 20, top: 20, bottom: 40 };

/**
 * The prompt size of every request against the budget and the long-context price line, with
 * each commit marked: one SVG, drawn here so the page needs no chart library. The y-axis is
 * set by the budget and the largest request, so the band a policy keeps stays readable.
 */
export function promptSizeChart(
  requests: readonly RequestLogRequestV1[],
  commits: readonly RequestLogCommitV1[],
  priceLineTokens: number | undefined,
): string {
  if (requests.length === 0) return '<p class="empty">No requests logged for this session.</p>';
  const budget = Math.max(...requests.map((row) => row.budgetTokens));
  const largest = Math.max(...requests.map((row) => row.estimatedTokens));
  const top = Math.max(budget, largest) * 1.08;
  const showPriceLine = priceLineTokens !== undefined && priceLineTokens <= top;
  const last = requests[requests.length - 1]!.request;
  const x = (request: number) =>
    MARGIN.left + ((request - 1) / Math.max(1, last - 1)) * (WIDTH - MARGIN.left - MARGIN.right);
  const y = (tokens: number) => HEIGHT - MARGIN.bottom - (tokens / top) * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const parts: string[] = [];
  parts.push(
    `<svg id="prompt-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="prompt tokens per request">`,
  );
  for (let tick = 0; tick <= 4; tick += 1) {
    const tokens = (top / 4) * tick;
    parts.push(
      `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tokens).toFixed(1)}" y2="${y(tokens).toFixed(1)}"/><text class="axis" x="${MARGIN.left - 6}" y="${(y(tokens) + 4).toFixed(1)}" text-anchor="end">${Math.round(tokens / 1000)}k</text>`,
    );
  }
  parts.push(
    `<line class="budget" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(budget).toFixed(1)}" y2="${y(budget).toFixed(1)}"><title>budget ${budget} tokens</title></line>`,
  );
  if (showPriceLine)
    parts.push(
      `<line class="price-line" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(priceLineTokens).toFixed(1)}" y2="${y(priceLineTokens).toFixed(1)}"><title>long-context price line ${priceLineTokens} tokens</title></line>`,
    );
  for (const commit of commits) {
    parts.push(
      `<line class="commit" data-request="${text(commit.request)}" x1="${x(commit.request).toFixed(1)}" x2="${x(commit.request).toFixed(1)}" y1="${MARGIN.top}" y2="${HEIGHT - MARGIN.bottom}"><title>commit epoch ${text(commit.epoch)} at request ${text(commit.request)}: ${text(commit.foldsLanded)} folds</title></line>`,
    );
  }
  const path = requests
    .map((row, index) => `${index === 0 ? 'M' : 'L'}${x(row.request).toFixed(1)},${y(row.estimatedTokens).toFixed(1)}`)
    .join(' ');
  parts.push(`<path class="series" d="${path}"/>`);
  for (const row of requests) {
    parts.push(
      `<circle class="point${row.causes.length > 0 ? ' rewrite' : ''}" data-request="${text(row.request)}" cx="${x(row.request).toFixed(1)}" cy="${y(row.estimatedTokens).toFixed(1)}" r="2.2"><title>request ${text(row.request)}: ≈${text(row.estimatedTokens)} tokens${row.causes.length > 0 ? ` (${text(row.causes.join(', '))})` : ''}${row.providerCacheRead === undefined ? '' : ` · cache read ${text(row.providerCacheRead)}`}</title></circle>`,
    );
  }
  parts.push(
    `<text class="axis" x="${(WIDTH / 2).toFixed(0)}" y="${HEIGHT - 8}" text-anchor="middle">request (1–${text(last)})</text>`,
  );
  parts.push('</svg>');
  const legend = [
    `<span class="key budget-key">budget ${budget.toLocaleString('en-US')}</span>`,
    `<span class="key commit-key">commit (${commits.length})</span>`,
  ];
  legend.push(
    showPriceLine
      ? `<span class="key price-key">price line ${priceLineTokens!.toLocaleString('en-US')}</span>`
      : priceLineTokens === undefined
        ? ''
        : `<span class="key">price line ${priceLineTokens.toLocaleString('en-US')} is above every request</span>`,
  );
  return `${parts.join('')}<p class="legend">${legend.join(' ')}</p>`;
}
