import {
  type MatchBudget,
  matchBudget,
  matchInWorker,
  SEARCH_BATCH_UNITS,
  SEARCH_STRETCH_UNITS,
} from '../search/regex-worker.ts';
import type { CompiledSearch } from '../search/search-pattern.ts';
import { matchByStretches, mayMatch } from '../search/text-stretches.ts';
import type { VerifiedText } from '../search/verified-text-cache.ts';
import { SpillBook } from '../spill/spill-book.ts';
import { codePointStart } from '../util/code-points.ts';

/** Bytes of context shown on each side of a match. */
const EXCERPT_SIDE_BYTES = 80;
/** A single match is shown at most this long (a regex can match a whole entry). */
const EXCERPT_MATCH_BYTES = 160;

const utf8 = new TextDecoder('utf-8');

/** One place a pattern occurs in the exact, verified source of a fold. */
export interface SearchHit {
  /**
   * The id whose peek shows this match: the innermost fold listing the entry, or a spill id
   * (docs/behaviour.md B6.2).
   */
  readonly foldId: string;
  readonly entryId: string;
  /** Byte offset of the match inside the entry's stored bytes. */
  readonly entryOffset: number;
  /** Byte offset in `foldId`'s peek document where the match's entry begins to show it. */
  readonly peekOffset: number;
  readonly matchBytes: number;
  readonly excerpt: string;
}

/** One verified entry to scan (its bytes, where not kept, are rebuilt from the text on a hit). */
export interface LocatedEntry extends VerifiedText {
  /** The id to peek for this entry: the innermost fold that lists it, or the spill itself. */
  readonly foldId: string;
  readonly entryId: string;
  /** Where the entry's bytes begin in its fold's one-level peek document. */
  readonly documentOffset: number;
}

/** Scans one entry; true (or a promise of it) to stop: the page is full. */
export type EntryScan = (located: LocatedEntry) => boolean | Promise<boolean>;

/** An entry waiting for its batch, and whether it can match at all (it holds the required literal). */
interface PendingEntry {
  readonly located: LocatedEntry;
  readonly mayMatch: boolean;
}

/**
 * One page of a search, filled entry by entry in transcript order. A literal is matched
 * where it is met (its time is bounded by the text, see search-pattern.ts); a regular
 * expression is matched in batches on a worker thread under a time bound (regex-worker.ts),
 * and the batches' matches are taken in the same order, so the page, its counts and where it
 * stops are the same either way. An entry without the expression's required literal is never
 * matched, and one longer than a stretch is matched stretch by stretch (text-stretches.ts).
 */
export class SearchPage {
  readonly hits: SearchHit[] = [];
  more = false;
  readonly foldsScanned = new Set<string>();
  readonly spillsScanned = new Set<string>();
  bytesScanned = 0;
  private seen = 0;
  private pending: PendingEntry[] = [];
  private pendingUnits = 0;
  private readonly budget: MatchBudget = matchBudget();

  constructor(
    private readonly compiled: CompiledSearch,
    private readonly pattern: string,
    private readonly inWorker: boolean,
    private readonly skip: number,
    private readonly limit: number,
  ) {}

  readonly scan: EntryScan = (located) => {
    if (!this.inWorker) return this.take(located, this.matchHere(located.text));
    const units = located.text.length;
    this.budget.largestTextUnits = Math.max(this.budget.largestTextUnits, units);
    if (units > SEARCH_STRETCH_UNITS) return this.matchLong(located);
    const matchable = mayMatch(this.compiled, located.text);
    this.pending.push({ located, mayMatch: matchable });
    if (matchable) this.pendingUnits += units;
    return this.pendingUnits >= SEARCH_BATCH_UNITS ? this.flush() : false;
  };

  /** Match what is still batched; true when the page filled. */
  async flush(): Promise<boolean> {
    if (this.pending.length === 0) return false;
    const batch = this.pending;
    this.pending = [];
    this.pendingUnits = 0;
    const sent = batch.filter((entry) => entry.mayMatch);
    const matches =
      sent.length === 0
        ? []
        : await matchInWorker(
            this.compiled.expression,
            sent.map((entry) => entry.located.text),
            this.wanted(),
            this.budget,
            this.pattern,
          );
    let next = 0;
    return batch.some((entry) => this.take(entry.located, entry.mayMatch ? matches[next++]! : []));
  }

  /** An entry longer than a stretch: what is batched before it first, then it, stretch by stretch. */
  private async matchLong(located: LocatedEntry): Promise<boolean> {
    if (await this.flush()) return true;
    const search = { compiled: this.compiled, pattern: this.pattern, wanted: this.wanted(), budget: this.budget };
    return this.take(located, await matchByStretches(located.text, search));
  }

  /** Matches still worth finding: the ones this page skips, shows, and one to tell that there are more. */
  private wanted(): number {
    return this.skip + this.limit + 1 - this.seen;
  }

  private matchHere(text: string): number[] {
    const found: number[] = [];
    const expression = this.compiled.expression;
    expression.lastIndex = 0;
    for (let match = expression.exec(text); match !== null; match = expression.exec(text)) {
      if (match[0].length === 0) expression.lastIndex += 1;
      found.push(match.index, match[0].length);
      if (this.seen + found.length / 2 > this.skip + this.limit) break;
    }
    return found;
  }

  /** Count one scanned entry and take its matches (flat index, length pairs); true once full. */
  private take(located: LocatedEntry, matches: readonly number[]): boolean {
    (SpillBook.isSpillId(located.foldId) ? this.spillsScanned : this.foldsScanned).add(located.foldId);
    this.bytesScanned += located.byteLength;
    const { text } = located;
    // Bytes only for an entry that has a hit: the text re-encodes to exactly the verified bytes.
    let bytes: Uint8Array | undefined;
    for (let pair = 0; pair < matches.length; pair += 2) {
      this.seen += 1;
      if (this.seen <= this.skip) continue;
      if (this.hits.length === this.limit) {
        this.more = true;
        return true;
      }
      const index = matches[pair]!;
      bytes ??= located.bytes ?? Buffer.from(text, 'utf8');
      const entryOffset = Buffer.byteLength(text.slice(0, index));
      const matchBytes = Buffer.byteLength(text.slice(index, index + matches[pair + 1]!));
      const peekOffset = located.documentOffset + codePointStart(bytes, Math.max(0, entryOffset - EXCERPT_SIDE_BYTES));
      this.hits.push({
        foldId: located.foldId,
        entryId: located.entryId,
        entryOffset,
        peekOffset,
        matchBytes,
        excerpt: excerptAround(bytes, entryOffset, matchBytes),
      });
    }
    return false;
  }
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
