import type { RequestLogCommitV1, RequestLogRequestV1 } from '../../ports/request-log.ts';
import { niceTicks } from '../chart-ticks.ts';
import { escapeHtml } from '../html-escape.ts';

/** A logged value as page text: a request log carries no checksum, so no field is trusted to be a number. */
const text = (value: unknown): string => escapeHtml(String(value));

const WIDTH = 960;
const HEIGHT = 320;
const MARGIN = { left: 78, right: 20, top: 20, bottom: 40 };
/** A budget more than this many times the largest request would squash every request into a flat line. */
const FAR_ABOVE = 2;

/**
 * The prompt size of every request against the budget and the long-context price line, with
 * each commit marked: one SVG, drawn here so the page needs no chart library. The y-axis is
 * set by the largest request, and by the budget when the budget is near it; a budget far
 * above every request is named in the legend instead, so the saw-tooth stays readable.
 */
export function promptSizeChart(
  requests: readonly RequestLogRequestV1[],
  commits: readonly RequestLogCommitV1[],
  priceLineTokens: number | undefined,
): string {
  if (requests.length === 0) return '<p class="empty">No requests logged for this session.</p>';
  const budget = Math.max(...requests.map((row) => row.budgetTokens));
  const largest = Math.max(1, ...requests.map((row) => row.estimatedTokens));
  const budgetOnScale = budget <= largest * FAR_ABOVE;
  const ticks = niceTicks((budgetOnScale ? Math.max(budget, largest) : largest) * 1.05);
  const top = ticks[ticks.length - 1]!;
  const showPriceLine = priceLineTokens !== undefined && priceLineTokens <= top;
  const last = requests[requests.length - 1]!.request;
  const x = (request: number) =>
    MARGIN.left + ((request - 1) / Math.max(1, last - 1)) * (WIDTH - MARGIN.left - MARGIN.right);
  const y = (tokens: number) => HEIGHT - MARGIN.bottom - (tokens / top) * (HEIGHT - MARGIN.top - MARGIN.bottom);
  const horizontal = (tokens: number, className: string, title: string) =>
    `<line class="${className}" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tokens).toFixed(1)}" y2="${y(tokens).toFixed(1)}"><title>${title}</title></line>`;
  const parts: string[] = [
    `<svg id="prompt-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="estimated prompt tokens per request">`,
  ];
  for (const tokens of ticks) {
    parts.push(
      `<line class="grid" x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${y(tokens).toFixed(1)}" y2="${y(tokens).toFixed(1)}"/><text class="axis" x="${MARGIN.left - 6}" y="${(y(tokens) + 4).toFixed(1)}" text-anchor="end">${tokenLabel(tokens)}</text>`,
    );
  }
  parts.push(
    `<text class="axis y-title" transform="translate(16 ${(HEIGHT - MARGIN.bottom + MARGIN.top) / 2}) rotate(-90)" text-anchor="middle">prompt tokens (estimated)</text>`,
  );
  if (budgetOnScale) parts.push(horizontal(budget, 'budget', `budget ${budget} tokens`));
  if (showPriceLine)
    parts.push(horizontal(priceLineTokens, 'price-line', `long-context price line ${priceLineTokens} tokens`));
  for (const commit of commits) {
    parts.push(
      `<line class="commit" data-request="${text(commit.request)}" x1="${x(commit.request).toFixed(1)}" x2="${x(commit.request).toFixed(1)}" y1="${MARGIN.top}" y2="${HEIGHT - MARGIN.bottom}"><title>commit epoch ${text(commit.epoch)} at request ${text(commit.request)}: ${text(commit.foldsLanded)} folds</title></line>`,
    );
  }
  const path = requests
    .map((row, index) => `${index === 0 ? 'M' : 'L'}${x(row.request).toFixed(1)},${y(row.estimatedTokens).toFixed(1)}`)
    .join(' ');
  parts.push(`<path class="series" d="${path}"/>`);
  for (const row of requests) parts.push(requestPoint(row, x, y));
  parts.push(
    `<text class="axis" x="${(WIDTH / 2).toFixed(0)}" y="${HEIGHT - 8}" text-anchor="middle">request (1–${text(last)})</text>`,
  );
  parts.push('</svg>');
  return `${parts.join('')}<p class="legend">${chartLegend({ budget, budgetOnScale, largest, commits: commits.length, priceLineTokens, showPriceLine })}</p>`;
}

/** One request's point: a give-back (a peek's long result returned to a stub) is told apart from the other rewrites. */
function requestPoint(row: RequestLogRequestV1, x: (request: number) => number, y: (tokens: number) => number): string {
  const causes = Array.isArray(row.causes) ? row.causes : [];
  const kind = causes.length === 0 ? '' : causes.every((cause) => cause === 'give-back') ? ' give-back' : ' rewrite';
  return `<circle class="point${kind}" data-request="${text(row.request)}" cx="${x(row.request).toFixed(1)}" cy="${y(row.estimatedTokens).toFixed(1)}" r="2.4"><title>request ${text(row.request)}: ≈${text(row.estimatedTokens)} tokens${causes.length > 0 ? ` (${text(causes.join(', '))})` : ''}${row.providerCacheRead === undefined ? '' : ` · cache read ${text(row.providerCacheRead)}`}</title></circle>`;
}

function chartLegend(facts: {
  readonly budget: number;
  readonly budgetOnScale: boolean;
  readonly largest: number;
  readonly commits: number;
  readonly priceLineTokens: number | undefined;
  readonly showPriceLine: boolean;
}): string {
  const tokens = (value: number) => value.toLocaleString('en-US');
  const keys = [
    '<span class="key point-key">● request: estimated prompt tokens</span>',
    '<span class="key rewrite-key">● rewrite (commit, expand, refold…)</span>',
    '<span class="key give-back-key">● give-back (a peek returned to its stub)</span>',
    `<span class="key commit-key">┆ commit (${tokens(facts.commits)})</span>`,
    facts.budgetOnScale
      ? `<span class="key budget-key">budget ${tokens(facts.budget)}</span>`
      : `<span class="key budget-key budget-off-scale">budget ${tokens(facts.budget)} tokens, far above every request (largest ${tokens(facts.largest)}): not drawn</span>`,
  ];
  if (facts.priceLineTokens !== undefined)
    keys.push(
      facts.showPriceLine
        ? `<span class="key price-key">price line ${tokens(facts.priceLineTokens)}</span>`
        : `<span class="key">price line ${tokens(facts.priceLineTokens)} is above every request</span>`,
    );
  return keys.join(' ');
}

function tokenLabel(tokens: number): string {
  if (tokens === 0) return '0';
  if (tokens >= 1_000_000) return `${Number((tokens / 1_000_000).toFixed(2))}M`;
  if (tokens >= 1_000) return `${Number((tokens / 1_000).toFixed(1))}k`;
  return String(tokens);
}
