import type { PendingMarkV1 } from '../../ports/fold-records.ts';
import type { TranscriptIndexView } from '../transcript/transcript-index.ts';

/** Stands for a mark with an end off the branch: it overlaps no span (every position is ≥ 0). */
const OFF_BRANCH = -1;

/**
 * Where the pending marks sit on the branch, for the frontier's passes. A pass asks whether a
 * span is blocked once per unit and rung; looking every mark up in the index for each
 * question was a walk of map lookups per question (bench:pi keeps a few dozen marks pending).
 * Kept from pass to pass: it takes in marks as they are pushed, reads the list again when it
 * is replaced, and places every mark again when the branch was rewritten (the index's
 * generation moved) or, with a mark off the branch, when entries arrived (they may be its).
 */
export class MarkSpans {
  /** The list the places were read from: the memory's marks, pushed to or replaced whole. */
  private placedList: readonly PendingMarkV1[] | undefined;
  private firsts: number[] = [];
  private lasts: number[] = [];
  private toolKind: boolean[] = [];
  private generation = -1;
  private length = -1;
  private offBranch = 0;

  constructor(private readonly index: Pick<TranscriptIndexView, 'positionOf' | 'generation' | 'length'>) {}

  /** Whether these are the places of marks on `index`. */
  reads(index: object): boolean {
    return index === this.index;
  }

  /**
   * Whether a mark blocks the span `first`..`last`: a mark of any other kind that overlaps
   * it, or a tool mark on exactly this span. A tool mark inside a chapter becomes its child
   * when both land; anything else overlapping would break the forest (docs/behaviour.md I3).
   */
  blocks(marks: readonly PendingMarkV1[], first: number, last: number): boolean {
    this.catchUp(marks);
    for (let at = 0; at < this.firsts.length; at += 1) {
      const markFirst = this.firsts[at]!;
      const markLast = this.lasts[at]!;
      if (markFirst > last || first > markLast) continue;
      if (!this.toolKind[at] || (markFirst === first && markLast === last)) return true;
    }
    return false;
  }

  private catchUp(marks: readonly PendingMarkV1[]): void {
    const { generation, length } = this.index;
    const stale = generation !== this.generation || (this.offBranch > 0 && length !== this.length);
    if (stale || marks !== this.placedList || marks.length < this.firsts.length) {
      this.placedList = marks;
      this.firsts = [];
      this.lasts = [];
      this.toolKind = [];
      this.offBranch = 0;
      this.generation = generation;
    }
    this.length = length;
    for (let at = this.firsts.length; at < marks.length; at += 1) {
      const mark = marks[at]!;
      const markFirst = this.index.positionOf(mark.firstEntryId);
      const markLast = this.index.positionOf(mark.lastEntryId);
      const onBranch = markFirst !== undefined && markLast !== undefined;
      if (!onBranch) this.offBranch += 1;
      this.firsts.push(onBranch ? markFirst : OFF_BRANCH);
      this.lasts.push(onBranch ? markLast : OFF_BRANCH);
      this.toolKind.push(mark.kind === 'tool');
    }
  }
}
