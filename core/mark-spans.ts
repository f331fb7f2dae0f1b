import type { PendingMarkV1 } from '../ports/fold-records.ts';
import type { TranscriptIndexView } from './session-view.ts';

/** Stands for a mark with an end off the branch: it overlaps no span (every position is ≥ 0). */
const OFF_BRANCH = -1;

/**
 * Where the pending marks sit on the branch, for one frontier pass. The pass asks whether a
 * span is blocked once per unit and rung; looking every mark up in the index for each
 * question was a walk of map lookups per question (bench:pi keeps a few dozen marks pending).
 * Built once per pass (the index does not change within one), it takes in marks the pass
 * cuts as they are pushed, and reads the list again when it is replaced.
 */
export class MarkSpans {
  private marks: readonly PendingMarkV1[] | undefined;
  private firsts: number[] = [];
  private lasts: number[] = [];
  private toolKind: boolean[] = [];

  constructor(private readonly index: Pick<TranscriptIndexView, 'positionOf'>) {}

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
    if (marks !== this.marks || marks.length < this.firsts.length) {
      this.marks = marks;
      this.firsts = [];
      this.lasts = [];
      this.toolKind = [];
    }
    for (let at = this.firsts.length; at < marks.length; at += 1) {
      const mark = marks[at]!;
      const markFirst = this.index.positionOf(mark.firstEntryId);
      const markLast = this.index.positionOf(mark.lastEntryId);
      const onBranch = markFirst !== undefined && markLast !== undefined;
      this.firsts.push(onBranch ? markFirst : OFF_BRANCH);
      this.lasts.push(onBranch ? markLast : OFF_BRANCH);
      this.toolKind.push(mark.kind === 'tool');
    }
  }
}
