import { escapeHtml } from '../html-escape.ts';
import type { ViewedFold, ViewedSpill, ViewerSession } from './viewer-session.ts';

/**
 * Any value as page text. Every field comes from a store that others may write to (a shared
 * Redis, a request log without checksums), so none is trusted to be the number or the id its
 * type says: each is escaped where it enters the page.
 */
export function text(value: unknown): string {
  return escapeHtml(String(value));
}

export function count(value: unknown): string {
  return typeof value === 'number' ? value.toLocaleString('en-US') : String(value);
}

/** One fold's line: its link, kind, size, epoch, who wrote the brief, and the brief's first line. */
function foldLine(fold: ViewedFold, extra = ''): string {
  const author = fold.provenance === 'supplied' ? `brief by ${fold.origin}` : 'brief by the runtime';
  return `<a href="#" class="fold" data-fold="${text(fold.id)}">${text(fold.id)}</a> <span class="kind">${text(fold.kind)}</span> · ${text(count(fold.entryCount))} entries · ${text(count(fold.sourceChars))} chars · epoch ${text(fold.epoch)} · <span class="author">${text(author)}</span>${extra}<div class="brief">${text(String(fold.brief).split('\n')[0] ?? '')}</div>`;
}

/**
 * The folds in the order they landed (epoch, and within one commit stalest first), each
 * naming the fold that later took it in: the history a reader follows from the top.
 */
export function foldTimeline(folds: readonly ViewedFold[]): string {
  if (folds.length === 0) return '<p class="empty">No fold committed yet.</p>';
  const position = new Map(folds.map((fold, index) => [fold, index]));
  const byId = new Map(folds.map((fold) => [fold.id, fold]));
  const landed = [...folds].sort((a, b) => Number(a.epoch) - Number(b.epoch) || position.get(a)! - position.get(b)!);
  const items = landed.map((fold) => {
    const parent = fold.parentId === null ? undefined : byId.get(fold.parentId);
    const into =
      parent === undefined
        ? ''
        : ` · <span class="into">later inside ${text(parent.id)} (epoch ${text(parent.epoch)})</span>`;
    return `<li data-epoch="${text(fold.epoch)}">${foldLine(fold, into)}</li>`;
  });
  return `<ol id="fold-timeline" class="timeline">${items.join('')}</ol>`;
}

/** The lattice as it stands: nested lists, each fold followed by its children in transcript order. */
export function foldForest(folds: readonly ViewedFold[]): string {
  if (folds.length === 0) return '';
  const children = new Map<string | null, ViewedFold[]>();
  for (const fold of folds) children.set(fold.parentId, [...(children.get(fold.parentId) ?? []), fold]);
  const list = (parentId: string | null): string => {
    const items = children.get(parentId) ?? [];
    if (items.length === 0) return '';
    return `<ul class="forest">${items.map((fold) => `<li>${foldLine(fold)}${list(fold.id)}</li>`).join('')}</ul>`;
  };
  return `<details id="fold-forest"><summary>The same folds as they nest now</summary>${list(null)}</details>`;
}

/**
 * Every item spilled to evidence (docs/behaviour.md B6.2): its size, what the window kept of
 * it, and where its exact bytes are. A spilled entry inside a fold opens with that fold; one
 * still raw in the window is read with `peek` by its id.
 */
export function spillList(spills: readonly ViewedSpill[]): string {
  if (spills.length === 0) return '<p class="empty">No tool output was spilled to evidence.</p>';
  const total = spills.reduce((sum, spill) => sum + (typeof spill.bytes === 'number' ? spill.bytes : 0), 0);
  const rows = spills.map((spill) => {
    const where =
      spill.foldId === undefined
        ? `raw in the window: <code>peek ${text(spill.id)}</code>`
        : `in <a href="#" class="fold" data-fold="${text(spill.foldId)}">${text(spill.foldId)}</a>`;
    return `<tr class="spill" data-spill="${text(spill.id)}"><td>${text(spill.id)}</td><td>${text(count(spill.bytes))}</td><td>${text(count(spill.headBytes))} + ${text(count(spill.tailBytes))}</td><td>${text(spill.request)}</td><td>${text(spill.entryId)}</td><td class="where">${where}</td><td><code>${text(String(spill.sha256).slice(0, 16))}…</code></td></tr>`;
  });
  return `<p class="meta">${text(spills.length)} items spilled, ${text(count(total))} bytes in all: the window showed each one's head and tail and a pointer; the exact bytes are in the evidence store, checked against their SHA-256 when read.</p><div class="scroll"><table id="spills"><thead><tr><th>spill</th><th>bytes</th><th>kept in window (head + tail)</th><th>first shown at request</th><th>entry</th><th>exact bytes</th><th>sha256</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}

/** The commits the provider measured, with what each freed and what it cost in cache. */
export function commitsTable(view: ViewerSession): string {
  if (view.commits.length === 0) return '<p class="empty">No commit measured yet.</p>';
  const rows = view.commits.map((commit) => {
    const next = view.requests.find((row) => row.request === commit.request + 1);
    const cells = [
      commit.epoch,
      commit.request,
      Array.isArray(commit.causes) ? commit.causes.join(', ') : commit.causes,
      commit.foldsLanded,
      count(commit.estimatedTokensBefore - commit.estimatedTokensAfter),
      count(commit.prefixTokensRewritten),
      commit.providerCacheRead === undefined ? '—' : count(commit.providerCacheRead),
      next?.providerCacheRead === undefined ? '—' : count(next.providerCacheRead),
    ];
    return `<tr>${cells.map((cell) => `<td>${text(cell)}</td>`).join('')}</tr>`;
  });
  return `<div class="scroll"><table id="commits"><thead><tr><th>epoch</th><th>request</th><th>cause</th><th>folds landed</th><th>tokens freed ≈</th><th>prefix given up ≈</th><th>cache read (that request)</th><th>cache read (next request)</th></tr></thead><tbody>${rows.join('')}</tbody></table></div>`;
}
