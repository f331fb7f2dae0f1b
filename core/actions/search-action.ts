import type { FoldRecord } from '../../ports/fold-records.ts';
import { compileSearch } from '../search/search-pattern.ts';
import { searchText, searchTextsOf, type VerifiedText, type VerifiedTextCache } from '../search/verified-text-cache.ts';
import { SpillBook } from '../spill/spill-book.ts';
import { verifiedBlob } from '../verified-reads.ts';
import { type FoldAction, SEARCH_DEFAULT_LIMIT } from './action-arguments.ts';
import type { ActionContext } from './action-context.ts';
import { type ActionOutcome, unknownId } from './action-context.ts';
import { requireChild } from './peek-action.ts';
import { childFoldLine, documentHeader, entryHeader, PEEK_SEPARATOR } from './peek-layout.ts';
import { codePointStart } from './piece-document.ts';
import { spillsToSearch } from './spill-reads.ts';

/** Bytes of context shown on each side of a match. */
const EXCERPT_SIDE_BYTES = 80;
/** A single match is shown at most this long (a regex can match a whole entry). */
const EXCERPT_MATCH_BYTES = 160;

const utf8 = new TextDecoder('utf-8');

/** One place a pattern occurs in the exact, verified source of a fold. */
export interface SearchHit {
  /** The id whose peek shows this match: the innermost fold listing the entry, or a spill id (docs/behaviour.md B6.2). */
  readonly foldId: string;
  readonly entryId: string;
  /** Byte offset of the match inside the entry's stored bytes. */
  readonly entryOffset: number;
  /** Byte offset in `foldId`'s peek document where the match's entry begins to show it. */
  readonly peekOffset: number;
  readonly matchBytes: number;
  readonly excerpt: string;
}

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
  const hits: SearchHit[] = [];
  let seen = 0;
  let more = false;
  const foldsScanned = new Set<string>();
  const spillsScanned = new Set<string>();
  let bytesScanned = 0;
  /** Scan one entry; true once the page is full. */
  const scan = (located: LocatedEntry): boolean => {
    (SpillBook.isSpillId(located.foldId) ? spillsScanned : foldsScanned).add(located.foldId);
    bytesScanned += located.byteLength;
    const { text } = located;
    // Bytes only for an entry that has a hit: the text re-encodes to exactly the verified bytes.
    let bytes: Uint8Array | undefined;
    compiled.expression.lastIndex = 0;
    for (let match = compiled.expression.exec(text); match !== null; match = compiled.expression.exec(text)) {
      if (match[0].length === 0) compiled.expression.lastIndex += 1;
      seen += 1;
      if (seen <= skip) continue;
      if (hits.length === action.limit) {
        more = true;
        return true;
      }
      bytes ??= located.bytes ?? Buffer.from(text, 'utf8');
      const entryOffset = Buffer.byteLength(text.slice(0, match.index));
      const matchBytes = Buffer.byteLength(match[0]);
      const peekOffset = located.documentOffset + codePointStart(bytes, Math.max(0, entryOffset - EXCERPT_SIDE_BYTES));
      hits.push({
        foldId: located.foldId,
        entryId: located.entryId,
        entryOffset,
        peekOffset,
        matchBytes,
        excerpt: excerptAround(bytes, entryOffset, matchBytes),
      });
    }
    return false;
  };
  await scanSources(session, action.within, scan);
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

/** One verified entry to scan (its bytes, where not kept, are rebuilt from the text on a hit). */
interface LocatedEntry extends VerifiedText {
  /** The id to peek for this entry: the innermost fold that lists it, or the spill itself. */
  readonly foldId: string;
  readonly entryId: string;
  /** Where the entry's bytes begin in its fold's one-level peek document. */
  readonly documentOffset: number;
}

/** Scans one entry; returns true to stop (the page is full). */
type EntryScan = (located: LocatedEntry) => boolean;

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
    if (
      scan({
        foldId: spill.id,
        entryId: spill.entryId,
        text: utf8.decode(spill.bytes),
        byteLength: spill.bytes.length,
        bytes: spill.bytes,
        documentOffset: spill.documentOffset,
      })
    )
      return;
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
      if (scan({ foldId: record.id, entryId: part.entryId, ...text, documentOffset })) return true;
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

function excerptAround(bytes: Uint8Array, offset: number, length: number): string {
  const from = codePointStart(bytes, Math.max(0, offset - EXCERPT_SIDE_BYTES));
  const shownMatchEnd = codePointStart(bytes, offset + Math.min(length, EXCERPT_MATCH_BYTES));
  const to = codePointStart(bytes, Math.min(bytes.length, offset + length + EXCERPT_SIDE_BYTES));
  const head = utf8.decode(bytes.subarray(from, shownMatchEnd));
  const tail =
    length > EXCERPT_MATCH_BYTES
      ? ` …[${length - EXCERPT_MATCH_BYTES} more matched bytes]`
      : utf8.decode(bytes.subarray(shownMatchEnd, to));
  return `${from > 0 ? '…' : ''}${head}${tail}${to < bytes.length ? '…' : ''}`;
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
