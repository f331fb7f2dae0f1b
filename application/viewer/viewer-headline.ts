import type { PriceList } from '../../ports/cost-model.port.ts';
import type { RequestLogCommitV1, RequestLogRequestV1 } from '../../ports/request-log.ts';
import { escapeHtml } from '../html-escape.ts';

/**
 * What folding did in a session, read from its request log, set against the window the same
 * session would have sent unfolded: that window is each request's prompt plus every token the
 * commits so far took out (a commit's estimate before minus after). Dollars price both the same
 * way: a pure append reads the previous prompt from the cache and writes the rest; a commit's
 * rewrite gives up the prefix it changed (`prefixTokensRewritten`) and pays it again. The
 * unfolded window only ever appends. Estimates, like the chart; output tokens are the same on
 * both sides and left out.
 */
export interface FoldingOutcome {
  readonly requests: number;
  readonly commits: number;
  readonly lastTokens: number;
  readonly lastUnfoldedTokens: number;
  readonly sentTokens: number;
  readonly unfoldedTokens: number;
  readonly dollars?: { readonly folded: number; readonly unfolded: number; readonly priceList: string };
}

export function foldingOutcome(
  requests: readonly RequestLogRequestV1[],
  commits: readonly RequestLogCommitV1[],
  prices?: PriceList,
): FoldingOutcome | undefined {
  if (requests.length === 0) return undefined;
  const commitsAt = new Map<number, RequestLogCommitV1[]>();
  for (const commit of commits) commitsAt.set(commit.request, [...(commitsAt.get(commit.request) ?? []), commit]);
  let freed = 0;
  let sent = 0;
  let unfolded = 0;
  let previousSent = 0;
  let previousUnfolded = 0;
  let folded$ = 0;
  let unfolded$ = 0;
  for (const row of requests) {
    const landed = commitsAt.get(row.request) ?? [];
    freed += landed.reduce(
      (sum, commit) => sum + Math.max(0, commit.estimatedTokensBefore - commit.estimatedTokensAfter),
      0,
    );
    const unfoldedNow = row.estimatedTokens + freed;
    sent += row.estimatedTokens;
    unfolded += unfoldedNow;
    if (prices !== undefined) {
      const givenUp = landed.reduce((sum, commit) => sum + commit.prefixTokensRewritten, 0);
      const cached = Math.min(row.estimatedTokens, Math.max(0, previousSent - givenUp));
      folded$ += promptDollars(prices, row.estimatedTokens, cached);
      unfolded$ += promptDollars(prices, unfoldedNow, Math.min(unfoldedNow, previousUnfolded));
    }
    previousSent = row.estimatedTokens;
    previousUnfolded = unfoldedNow;
  }
  const last = requests[requests.length - 1]!;
  return {
    requests: requests.length,
    commits: commits.length,
    lastTokens: last.estimatedTokens,
    lastUnfoldedTokens: previousUnfolded,
    sentTokens: sent,
    unfoldedTokens: unfolded,
    ...(prices === undefined ? {} : { dollars: { folded: folded$, unfolded: unfolded$, priceList: prices.name } }),
  };
}

/** One prompt's price: `cached` tokens read from the cache, the rest written to it, at the rates for its size. */
function promptDollars(prices: PriceList, tokens: number, cached: number): number {
  const rates =
    prices.longContext !== undefined && tokens > prices.longContext.aboveTokens
      ? prices.longContext.rates
      : prices.base;
  return (cached * rates.cacheRead + (tokens - cached) * rates.cacheWrite) / 1_000_000;
}

const tokens = (value: number) => Math.round(value).toLocaleString('en-US');
const dollars = (value: number) => `$${value < 10 ? value.toFixed(3) : value.toFixed(2)}`;
const ratio = (part: number, whole: number) => (whole <= 0 ? '—' : `${(part / whole).toFixed(2)}×`);

/** The page's lead: what folding did, before any count. */
export function foldingHeadline(outcome: FoldingOutcome | undefined): string {
  if (outcome === undefined)
    return '<p class="headline">No request is logged for this session yet, so there is nothing to compare.</p>';
  const lines = [
    `The last request sent <strong>${tokens(outcome.lastTokens)}</strong> prompt tokens; unfolded it would have sent ${tokens(outcome.lastUnfoldedTokens)} (${ratio(outcome.lastTokens, outcome.lastUnfoldedTokens)}).`,
    `Over ${tokens(outcome.requests)} requests and ${tokens(outcome.commits)} commit${outcome.commits === 1 ? '' : 's'}: <strong>${tokens(outcome.sentTokens)}</strong> prompt tokens sent against ${tokens(outcome.unfoldedTokens)} unfolded (${ratio(outcome.sentTokens, outcome.unfoldedTokens)}).`,
  ];
  if (outcome.dollars !== undefined)
    lines.push(
      `Prompt cost: <strong>${dollars(outcome.dollars.folded)}</strong> against ${dollars(outcome.dollars.unfolded)} unfolded (${ratio(outcome.dollars.folded, outcome.dollars.unfolded)}) at ${escapeHtml(outcome.dollars.priceList)} prices, with a prefix cache.`,
    );
  return `<div class="headline"><h2>What folding did</h2>${lines.map((line) => `<p>${line}</p>`).join('')}<p class="meta">Estimates from the request log: the unfolded window is each prompt plus what the commits so far took out; a commit's rewrite is billed as fresh input, everything else as cache reads of the previous prompt. Output is the same either way and left out.</p></div>`;
}
