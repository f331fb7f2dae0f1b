import type { FoldRecord } from '../../ports/fold-records.ts';
import { compileSearch } from '../search/search-pattern.ts';
import { searchText, searchTextsOf, type VerifiedTextCache } from '../search/verified-text-cache.ts';
import { SpillBook } from '../spill/spill-book.ts';
import { verifiedBlob } from '../store/verified-reads.ts';
import { type FoldAction, SEARCH_DEFAULT_LIMIT } from './action-arguments.ts';
import type { ActionContext } from './action-context.ts';
import { type ActionOutcome, unknownId } from './action-context.ts';
import { requireChild } from './peek-action.ts';
import { childFoldLine, documentHeader, entryHeader, PEEK_SEPARATOR } from './peek-layout.ts';
import { type EntryScan, type SearchHit, SearchPage } from './search-scan.ts';
import { spillsToSearch } from './spill-reads.ts';

const utf8 = new TextDecoder('utf-8');

export type { SearchHit } from './search-scan.ts';

/**
 * docs/behaviour.md B4 extension: exact search over the verified originals of every fold on this branch, in
 * transcript order. Each entry's bytes are verified against their SHA-256 before they are
 * scanned (docs/behaviour.md I2); the answer is a tool result, the window is not touched (I1). Paged: a page
 * stops scanning once it is full and says how to get the next.
 */
export async function searchAction(
  session: ActionContext,
  action: Extract<FoldAction, { action: 'search' }>,
): Promise<ActionOutcome> {
  const compiled = compileSearch(action);
  const skip = (action.page - 1) * action.limit;
  const page = new SearchPage(compiled, action.pattern, action.regex, skip, action.limit);
  try {
    await scanSources(session, action.within, page.scan);
  } catch (error) {
    // A read that fails past the point where the page fills is not this page's concern:
    // the batched entries before it are matched first, as a scan one entry at a time would.
    if (!(await page.flush())) throw error;
  }
  await page.flush();
  const { hits, more, foldsScanned, spillsScanned, bytesScanned } = page;
  const scanned = `${foldsScanned.size} folds${spillsScanned.size > 0 ? ` and ${spillsScanned.size} spilled items` : ''}`;
  return {
    text: renderHits(action, compiled.describe, hits, more, scanned, skip),
    data: {
      pattern: action.pattern,
      mode: compiled.describe,
      page: action.page,
      hits,
      more,
      foldsScanned: foldsScanned.size,
      spillsScanned: spillsScanned.size,
      bytesScanned,
    },
    mutated: false,
  };
}

/**
 * What a search scans, in a fixed order (so pages are stable): every fold's entries in
 * transcript order, then the spilled items shown raw in the window (docs/behaviour.md B6.2). `within` narrows
 * it to one fold's subtree or one spill.
 */
async function scanSources(session: ActionContext, within: string | undefined, scan: EntryScan): Promise<void> {
  const withinSpill = within !== undefined && SpillBook.isSpillId(within);
  if (!withinSpill && (await scanFolds(session, searchRoots(session, within), searchTextsOf(session.foldStore), scan)))
    return;
  if (within !== undefined && !withinSpill) return;
  // Spilled items shown raw are read and verified on every search, not cached: they are what
  // the window holds (bounded by it), unlike the folded history, which only grows.
  for await (const spill of spillsToSearch(session, within)) {
    const located = {
      foldId: spill.id,
      entryId: spill.entryId,
      text: utf8.decode(spill.bytes),
      byteLength: spill.bytes.length,
      bytes: spill.bytes,
      documentOffset: spill.documentOffset,
    };
    if (await scan(located)) return;
  }
}

/**
 * Every entry under `roots` in transcript order, with its place in the peek document of the
 * innermost fold that lists it. Each blob is read and verified the first time a search of
 * this process meets it, then scanned from the verified-text cache: a search of a long folded
 * history awaits nothing but the blobs it has not verified yet. Returns true once `scan` stopped.
 */
async function scanFolds(
  session: ActionContext,
  roots: readonly FoldRecord[],
  texts: VerifiedTextCache,
  scan: EntryScan,
): Promise<boolean> {
  for (const record of roots) {
    const lengths = layoutLengths(record);
    let documentOffset = lengths.header;
    for (const part of record.parts) {
      documentOffset += PEEK_SEPARATOR.length;
      if (part.kind === 'fold') {
        const child = requireChild(session, record, part.foldId);
        documentOffset += layoutLengths(child).childLine;
        if (await scanFolds(session, [child], texts, scan)) return true;
        continue;
      }
      documentOffset += entryHeader(part.entryId, part.sha256).length;
      // Awaited only on a miss: a held text is scanned without a turn of the event loop.
      const text =
        texts.get(part.sha256) ??
        (await searchText(texts, part.sha256, () => verifiedBlob(session.foldStore, part.sha256)));
      const stop = scan({ foldId: record.id, entryId: part.entryId, ...text, documentOffset });
      if (stop === true || (stop !== false && (await stop))) return true;
      documentOffset += text.byteLength;
    }
  }
  return false;
}

// Fold records never change, so the byte lengths of the lines a peek document gives them are
// worked out once per record (a child's line clips its brief: not free on every search).
const layoutLengthsByRecord = new WeakMap<FoldRecord, { readonly header: number; readonly childLine: number }>();

function layoutLengths(record: FoldRecord): { readonly header: number; readonly childLine: number } {
  let lengths = layoutLengthsByRecord.get(record);
  if (lengths === undefined) {
    lengths = { header: documentHeader(record).length, childLine: childFoldLine(record).length };
    layoutLengthsByRecord.set(record, lengths);
  }
  return lengths;
}

/** The outermost folds to search, in transcript order: every fold on this branch, or one subtree. */
function searchRoots(session: ActionContext, within: string | undefined): FoldRecord[] {
  if (within !== undefined) {
    const root = session.lattice.record(within);
    if (root === undefined) throw unknownId(session, within, 'search.within');
    return [root];
  }
  // A restored session before its first request has no branch to place folds on: search
  // every stored fold, roots in commit order, rather than answer from nothing.
  if (session.index.length === 0) return session.lattice.rootRecords();
  const roots: { record: FoldRecord; first: number }[] = [];
  for (const record of session.lattice.allRecords()) {
    const placement = session.lattice.placement(record.id);
    const parent = session.lattice.parentOf(record.id);
    if (placement !== undefined && (parent === undefined || session.lattice.placement(parent) === undefined))
      roots.push(placement);
  }
  roots.sort((a, b) => a.first - b.first);
  return roots.map((root) => root.record);
}

function renderHits(
  action: Extract<FoldAction, { action: 'search' }>,
  mode: string,
  hits: readonly SearchHit[],
  more: boolean,
  scanned: string,
  skip: number,
): string {
  const head = `search ${JSON.stringify(action.pattern)} (${mode}${action.within === undefined ? '' : `, within ${action.within}`}): `;
  if (hits.length === 0)
    return `${head}${skip > 0 ? `no matches on page ${action.page}` : 'no matches'} in ${scanned} (exact, verified source)`;
  const lines = [`${head}matches ${skip + 1}-${skip + hits.length} from ${scanned} (exact, verified source)`];
  hits.forEach((hit, position) => {
    lines.push(
      `${skip + position + 1}. ${SpillBook.isSpillId(hit.foldId) ? 'spill' : 'fold'} ${hit.foldId} · entry ${hit.entryId} · byte ${hit.entryOffset} · read: {"action":"peek","id":"${hit.foldId}","offset":${hit.peekOffset}}`,
    );
    lines.push(`   ${hit.excerpt}`);
  });
  const next = { ...searchArguments(action), page: action.page + 1 };
  lines.push(more ? `more matches: ${JSON.stringify(next)}` : 'no more matches');
  return lines.join('\n');
}

function searchArguments(action: Extract<FoldAction, { action: 'search' }>): Record<string, unknown> {
  return {
    action: 'search',
    pattern: action.pattern,
    ...(action.regex ? { regex: true } : {}),
    ...(action.ignoreCase ? { ignoreCase: true } : {}),
    ...(action.within === undefined ? {} : { within: action.within }),
    ...(action.limit === SEARCH_DEFAULT_LIMIT ? {} : { limit: action.limit }),
  };
}
