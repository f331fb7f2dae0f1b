import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { PriceList } from '../../ports/cost-model.port.ts';
import { escapeHtml } from '../html-escape.ts';
import { promptSizeChart } from './viewer-chart.ts';
import { foldingHeadline, foldingOutcome } from './viewer-headline.ts';
import { commitsTable, foldForest, foldTimeline, spillList, text } from './viewer-lists.ts';
import { VIEWER_SCRIPT } from './viewer-script.ts';
import type { ViewerSession } from './viewer-session.ts';

/** Chars of a fold's source shown per page when it is opened. */
export const VIEWER_PAGE_CHARS = 16_000;

export interface ViewerPageOptions {
  /** Prompt size above which the price list charges its long-context rates, drawn as a line. */
  readonly priceLineTokens?: number;
  /** When the page was written (shown, never used to compute anything). */
  readonly writtenAt?: string;
  /** Prices for the lead's dollars, folded against unfolded; without them the lead gives tokens only. */
  readonly prices?: PriceList;
}

/**
 * One self-contained HTML page for a session: no server, no outside script, style or font.
 * Everything it shows was read from the store by `readViewerSession` (sources verified then).
 */
export function renderViewerPage(view: ViewerSession, options: ViewerPageOptions = {}): string {
  const data = { pageChars: VIEWER_PAGE_CHARS, folds: view.folds, sources: view.sources };
  const requests = Array.isArray(view.requests) ? view.requests : [];
  const rewrites = requests.filter((row) => Array.isArray(row.causes) && row.causes.length > 0).length;
  const spills = view.spills ?? [];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src '${VIEWER_SCRIPT_HASH}'; img-src data:">
<title>pi-fold · ${escapeHtml(view.sessionId)}</title>
<style>${VIEWER_STYLE}</style></head>
<body>
<header><h1>pi-fold session ${escapeHtml(view.sessionId)}</h1>
${foldingHeadline(foldingOutcome(requests, Array.isArray(view.commits) ? view.commits : [], options.prices))}
<p class="meta">${escapeHtml(view.storeName)} store · ${text(requests.length)} requests · ${text(rewrites)} rewrites · ${text(view.commits.length)} commits measured · ${text(view.folds.length)} folds · ${text(spills.length)} spills${options.writtenAt === undefined ? '' : ` · written ${escapeHtml(options.writtenAt)}`} · read-only view: sources verified against their SHA-256 when this page was written</p>
${view.notes.map((note) => `<p class="note">${escapeHtml(note)}</p>`).join('\n')}
</header>
<section><h2>Prompt size per request</h2>${promptSizeChart(requests, view.commits, options.priceLineTokens)}</section>
<section><h2>Commits</h2>${commitsTable(view)}</section>
<section><h2>Spilled tool output</h2>${spillList(spills)}</section>
<section class="columns"><div><h2>Folds, in the order they landed</h2>${foldTimeline(view.folds)}${foldForest(view.folds)}</div>
<div><h2>Search every fold</h2>
<form id="search-form"><input id="search-pattern" type="search" placeholder="exact text or /regex/" aria-label="search pattern"> <label><input id="search-regex" type="checkbox"> regex</label> <label><input id="search-case" type="checkbox"> ignore case</label> <button type="submit">search</button></form>
<ul id="search-results"></ul>
<div id="fold-detail"><p class="empty">Open a fold to read its source: decoded, with the exact stored bytes one click away.</p></div></div></section>
<script type="application/json" id="viewer-data">${embeddedData(data)}</script>
<script>${VIEWER_SCRIPT}</script>
</body></html>
`;
}

/**
 * The folds and their sources as the script reads them: JSON, gzip, base64, in a JSON string.
 * A session's folded bytes are most of the page, and text compresses several times over, so
 * the page grows with the session at a fraction of its bytes. Base64 holds no `<`, so no
 * source text can close the element.
 */
function embeddedData(value: unknown): string {
  return JSON.stringify(gzipSync(JSON.stringify(value), { level: 9 }).toString('base64'));
}

/** The page runs only its own script: the CSP allows exactly this hash, never inline script at large. */
const VIEWER_SCRIPT_HASH = `sha256-${createHash('sha256').update(VIEWER_SCRIPT, 'utf8').digest('base64')}`;

const VIEWER_STYLE = `
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1200px;padding:1em;color:#1b1f24}
h1{font-size:1.3em;margin:.2em 0}h2{font-size:1.05em;margin:1.2em 0 .4em}
.meta,.legend,.note,.empty{color:#57606a}.headline{font-size:15px;border-left:4px solid #1a7f37;padding:.2em .8em;margin:.6em 0;background:#f6fff8}.headline h2{margin:.2em 0}.headline p{margin:.3em 0}.note{color:#9a6700}
svg{width:100%;height:auto;background:#fafbfc;border:1px solid #d0d7de}
.grid{stroke:#eaeef2}.axis{font-size:11px;fill:#57606a}.budget{stroke:#cf222e;stroke-width:1.5}
.price-line{stroke:#9a6700;stroke-dasharray:6 4}.commit{stroke:#8250df;stroke-dasharray:2 3}
.series{fill:none;stroke:#0969da;stroke-width:1}.point{fill:#0969da}.point.rewrite{fill:#8250df}.point.give-back{fill:#bf8700}
.key{padding:0 .6em;border-left:4px solid #ccc;display:inline-block}.point-key{color:#0969da}.rewrite-key{color:#8250df}.give-back-key{color:#bf8700}.y-title{font-size:12px}.into{color:#57606a}.timeline{padding-left:2.2em}.timeline li{margin:.25em 0}.budget-key{border-color:#cf222e}.price-key{border-color:#9a6700}.commit-key{border-color:#8250df}
table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #d0d7de;padding:.2em .5em;text-align:right}th{background:#f6f8fa}
.scroll{max-height:260px;max-width:100%;overflow:auto;display:inline-block;border:1px solid #d0d7de}
.columns{display:grid;grid-template-columns:1fr 1fr;gap:1.5em}.forest{padding-left:1.1em}.forest li{margin:.25em 0}
.brief{color:#57606a;font-size:12px;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:540px}
.kind{font-weight:600}.source{white-space:pre-wrap;word-break:break-all;background:#f6f8fa;border:1px solid #d0d7de;padding:.6em;max-height:520px;overflow:auto;font-size:12px}
#search-results code{font-size:12px;color:#57606a}.pager button{margin:0 .3em}
`;
