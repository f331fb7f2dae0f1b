import type { FoldLatticeView } from '../../folds/fold-lattice.ts';
import type { TranscriptIndexView } from '../../transcript/transcript-index.ts';
import { displayedChars } from '../plan/planner.ts';

/** Spans remembered before the memo starts over (a session asks about a few dozen between commits). */
const MAX_SPANS = 4_096;

/** Positions a numeric key can tell apart (first and last share one safe integer). */
const POSITION_LIMIT = 2 ** 26;

/**
 * `displayedChars` of the spans the cost scheduler measures on every request: the prefix a
 * commit would keep and each candidate mark's span. Between commits those answers do not
 * move (an append adds positions after them; only a fold landing, expanding or collapsing, or
 * a rewrite of history changes what a span shows), yet each was a walk over the span's
 * entries per request. So each answer is kept until the lattice's revision or the index's
 * generation moves, and a request costs a lookup per span instead of a walk of the session.
 */
export class DisplayedCharsMemo {
  private readonly chars = new Map<number, number>();
  private latticeRevision = -1;
  private indexGeneration = -1;
  private toolName: string | undefined;

  constructor(
    private readonly session: {
      readonly index: TranscriptIndexView;
      readonly lattice: FoldLatticeView;
      readonly settings: { readonly toolName: string };
    },
  ) {}

  /** Chars positions [first, last] show in the window now (0 for an empty span). */
  measure(first: number, last: number): number {
    const { index, lattice, settings } = this.session;
    if (last < first) return 0;
    if (last >= POSITION_LIMIT) return displayedChars({ index, toolName: settings.toolName }, lattice, first, last);
    if (
      lattice.revision !== this.latticeRevision ||
      index.generation !== this.indexGeneration ||
      settings.toolName !== this.toolName ||
      this.chars.size >= MAX_SPANS
    ) {
      this.chars.clear();
      this.latticeRevision = lattice.revision;
      this.indexGeneration = index.generation;
      this.toolName = settings.toolName;
    }
    const key = first * POSITION_LIMIT + last;
    let chars = this.chars.get(key);
    if (chars === undefined) {
      chars = displayedChars({ index, toolName: settings.toolName }, lattice, first, last);
      this.chars.set(key, chars);
    }
    return chars;
  }
}
