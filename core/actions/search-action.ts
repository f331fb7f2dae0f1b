import type { FoldRecord } from '../../ports/fold-records.ts';
import type { ActionContext } from './action-context.ts';
import { verifiedBlob } from '../verified-reads.ts';
import { compileSearch } from '../search/search-pattern.ts';
import { SEARCH_DEFAULT_LIMIT, type FoldAction } from './action-arguments.ts';
import { unknownId, type ActionOutcome } from './action-context.ts';
import { requireChild } from './peek-action.ts';
import { spillsToSearch } from './spill-reads.ts';
import { SpillBook } from '../spill/spill-book.ts';
import { codePointStart } from './piece-document.ts';
import { childFoldLine, documentHeader, entryHeader, PEEK_SEPARATOR } from './peek-layout.ts';

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
export async function searchAction(session: ActionContext, action: Extract<FoldAction, { action: 'search' }>): Promise<ActionOutcome> {
  const compiled = compileSearch(action);
  const skip = (action.page - 1) * action.limit;
  const hits: SearchHit[] = [];
  let seen = 0;
  let more = false;
  const foldsScanned = new Set<string>();
  const spillsScanned = new Set<string>();
  let bytesScanned = 0;
  scan: for await (const located of searchedSources(session, action.within)) {
    (SpillBook.isSpillId(located.foldId) ? spillsScanned : foldsScanned).add(located.foldId);
    bytesScanned += located.bytes.length;
    const text = utf8.decode(located.bytes);
    compiled.expression.lastIndex = 0;
    for (let match = compiled.expression.exec(text); match !== null; match = compiled.expression.exec(text)) {
      if (match[0].length === 0) compiled.expression.lastIndex += 1;
      seen += 1;
      if (seen <= skip) continue;
      if (hits.length === action.limit) {
        more = true;
        break scan;
      }
      const entryOffset = Buffer.byteLength(text.slice(0, match.index));
      const matchBytes = Buffer.byteLength(match[0]);
      const peekOffset = located.documentOffset + codePointStart(located.bytes, Math.max(0, entryOffset - EXCERPT_SIDE_BYTES));
      hits.push({ foldId: located.foldId, entryId: located.entryId, entryOffset, peekOffset, matchBytes, excerpt: excerptAround(located.bytes, entryOffset, matchBytes) });
    }
  }
  const scanned = `${foldsScanned.size} folds${spillsScanned.size > 0 ? ` and ${spillsScanned.size} spilled items` : ''}`;
  return {
    text: renderHits(action, compiled.describe, hits, more, scanned, skip),
    data: { pattern: action.pattern, mode: compiled.describe, page: action.page, hits, more, foldsScanned: foldsScanned.size, spillsScanned: spillsScanned.size, bytesScanned },
    mutated: false,
  };
}

interface LocatedEntry {
  /** The id to peek for this entry: the innermost fold that lists it, or the spill itself. */
  readonly foldId: string;
  readonly entryId: string;
  /** Verified bytes of the entry. */
  readonly bytes: Uint8Array;
  /** Where the entry's bytes begin in its fold's one-level peek document. */
  readonly documentOffset: number;
}

/**
 * What a search scans, in a fixed order (so pages are stable): every fold's entries in
 * transcript order, then the spilled items shown raw in the window (docs/behaviour.md B6.2). `within` narrows
 * it to one fold's subtree or one spill.
 */
async function* searchedSources(session: ActionContext, within: string | undefined): AsyncGenerator<LocatedEntry> {
  const withinSpill = within !== undefined && SpillBook.isSpillId(within);
  if (!withinSpill) yield* entriesInOrder(session, searchRoots(session, within));
  if (within !== undefined && !withinSpill) return;
  for await (const spill of spillsToSearch(session, within)) yield { foldId: spill.id, entryId: spill.entryId, bytes: spill.bytes, documentOffset: spill.documentOffset };
}

/**
 * Every entry under `roots` in transcript order, each read and verified once, with its
 * place in the peek document of the innermost fold that lists it.
 */
async function* entriesInOrder(session: ActionContext, roots: readonly FoldRecord[]): AsyncGenerator<LocatedEntry> {
  for (const record of roots) {
    let documentOffset = documentHeader(record).length;
    for (const part of record.parts) {
      documentOffset += PEEK_SEPARATOR.length;
      if (part.kind === 'fold') {
        const child = requireChild(session, record, part.foldId);
        documentOffset += childFoldLine(child).length;
        yield* entriesInOrder(session, [child]);
        continue;
      }
      documentOffset += entryHeader(part.entryId, part.sha256).length;
      const bytes = await verifiedBlob(session.foldStore, part.sha256);
      yield { foldId: record.id, entryId: part.entryId, bytes, documentOffset };
      documentOffset += bytes.length;
    }
  }
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
    if (placement !== undefined && (parent === undefined || session.lattice.placement(parent) === undefined)) roots.push(placement);
  }
  roots.sort((a, b) => a.first - b.first);
  return roots.map((root) => root.record);
}

function excerptAround(bytes: Uint8Array, offset: number, length: number): string {
  const from = codePointStart(bytes, Math.max(0, offset - EXCERPT_SIDE_BYTES));
  const shownMatchEnd = codePointStart(bytes, offset + Math.min(length, EXCERPT_MATCH_BYTES));
  const to = codePointStart(bytes, Math.min(bytes.length, offset + length + EXCERPT_SIDE_BYTES));
  const head = utf8.decode(bytes.subarray(from, shownMatchEnd));
  const tail = length > EXCERPT_MATCH_BYTES ? ` …[${length - EXCERPT_MATCH_BYTES} more matched bytes]` : utf8.decode(bytes.subarray(shownMatchEnd, to));
  return `${from > 0 ? '…' : ''}${head}${tail}${to < bytes.length ? '…' : ''}`;
}

function renderHits(action: Extract<FoldAction, { action: 'search' }>, mode: string, hits: readonly SearchHit[], more: boolean, scanned: string, skip: number): string {
  const head = `search ${JSON.stringify(action.pattern)} (${mode}${action.within === undefined ? '' : `, within ${action.within}`}): `;
  if (hits.length === 0) return `${head}${skip > 0 ? `no matches on page ${action.page}` : 'no matches'} in ${scanned} (exact, verified source)`;
  const lines = [`${head}matches ${skip + 1}-${skip + hits.length} from ${scanned} (exact, verified source)`];
  hits.forEach((hit, position) => {
    lines.push(`${skip + position + 1}. ${SpillBook.isSpillId(hit.foldId) ? 'spill' : 'fold'} ${hit.foldId} · entry ${hit.entryId} · byte ${hit.entryOffset} · read: {"action":"peek","id":"${hit.foldId}","offset":${hit.peekOffset}}`);
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
