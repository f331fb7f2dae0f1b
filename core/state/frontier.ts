import type { PendingMarkV1 } from '../../ports/fold-records.ts';
import { foldIdOfSpan } from '../folds/fold-ids.ts';
import type { FoldLattice, PlacedFold } from '../folds/fold-lattice.ts';
import type { FoldSettings } from '../settings/settings.ts';
import type { TranscriptIndex, Unit } from '../transcript/transcript-index.ts';
import type { EngineMemory } from './engine-memory.ts';
import { MAX_PENDING_MARKS } from './engine-memory.ts';
import { MarkSpans } from './mark-spans.ts';

/** Cuts per pass (docs/behaviour.md B2.1): enough to keep up, few enough that one request stays cheap. */
export const CUTS_PER_PASS = 8;
/**
 * A chapter spans at most this many units, whatever their size, unless the fence needs longer
 * ones to cover a history in the marks that may wait (`PassMode.chapterMinUnits`).
 */
export const CHAPTER_MAX_UNITS = 48;
/** Chars a folded tool result still shows (its stub), used to size chapters. */
const STUB_CHARS_ESTIMATE = 320;

/**
 * How a pass cuts. The fence on a history too long for one fold per tool batch (more batches
 * than marks may wait) leaves the tool rung out and makes each chapter span at least
 * `chapterMinUnits` units, so the whole history fits in the marks that may wait at once.
 */
export interface PassMode {
  readonly toolFolds: boolean;
  readonly chapterMinUnits: number;
}

const EVERY_RUNG: PassMode = { toolFolds: true, chapterMinUnits: 1 };

export interface FrontierInputs {
  readonly index: TranscriptIndex;
  readonly lattice: FoldLattice;
  readonly memory: EngineMemory;
  readonly settings: FoldSettings;
  /** Collapsed folds visible in the window, in order (from the last full render). */
  readonly visibleFolds: readonly PlacedFold[];
  readonly request: number;
}

/**
 * The frontier cuts closed units into pending marks as they close (docs/behaviour.md B2). Cutting only
 * records a decision in state; no byte of the window moves. Each unit is looked at once:
 * cursors remember how far each rung got, and actions that free a span rewind them.
 */
export class Frontier {
  private toolCursor = 0;
  private chapterCursor = 0;
  private chapterResidual = 0;
  private chapterUnits = 0;
  private chapterStart = 0;
  /** The marks' places on the branch, kept from pass to pass (see MarkSpans). */
  private markSpans: MarkSpans | undefined;

  /** Look again from the unit holding entry `position` (after pins, holds or marks changed). */
  rewindTo(index: TranscriptIndex, position: number): void {
    const unit = index.unitOf[Math.max(0, Math.min(position, index.length - 1))] ?? 0;
    this.toolCursor = Math.min(this.toolCursor, unit);
    if (unit <= this.chapterCursor) {
      this.chapterCursor = unit;
      this.resetAccumulation(unit);
    } else if (unit < this.chapterStart + this.chapterUnits) {
      this.chapterCursor = this.chapterStart;
      this.resetAccumulation(this.chapterStart);
    }
  }

  /** Forget everything (after the transcript changed under us). */
  reset(): void {
    this.toolCursor = 0;
    this.chapterCursor = 0;
    this.resetAccumulation(0);
  }

  /** One pass of the rungs; `mode` is for the fence alone (see PassMode). */
  pass(inputs: FrontierInputs, mode: PassMode = EVERY_RUNG): PendingMarkV1[] {
    const cuts: PendingMarkV1[] = [];
    if (mode.toolFolds) this.toolRung(inputs, cuts);
    this.chapterRung(inputs, cuts, mode);
    this.consolidationRung(inputs, cuts);
    return cuts;
  }

  private canCut(inputs: FrontierInputs, cuts: PendingMarkV1[]): boolean {
    return cuts.length < CUTS_PER_PASS && inputs.memory.marks.length < MAX_PENDING_MARKS;
  }

  private toolRung(inputs: FrontierInputs, cuts: PendingMarkV1[]): void {
    const { index, settings } = inputs;
    while (index.isClosed(this.toolCursor) && this.canCut(inputs, cuts)) {
      const unit = index.units[this.toolCursor]!;
      this.toolCursor += 1;
      if (unit.kind !== 'tool-batch' || unit.protected || unit.resultChars < settings.thresholds.minFoldChars) continue;
      if (unit.toolNames.some((name) => settings.blacklistAutoFoldTools.has(name))) continue;
      const first = unit.first + 1;
      if (this.isBlocked(inputs, first, unit.last)) continue;
      this.cut(inputs, cuts, 'tool', first, unit.last);
    }
  }

  private chapterRung(inputs: FrontierInputs, cuts: PendingMarkV1[], mode: PassMode): void {
    const { index, settings } = inputs;
    while (index.isClosed(this.chapterCursor) && this.canCut(inputs, cuts)) {
      const unit = index.units[this.chapterCursor]!;
      if (unit.protected || this.isBlocked(inputs, unit.first, unit.last) || this.holdsExpandedFold(inputs, unit)) {
        this.flushSmallRun(inputs);
        this.chapterCursor += 1;
        this.resetAccumulation(this.chapterCursor);
        continue;
      }
      this.chapterResidual += mode.toolFolds ? residualChars(inputs, unit) : unit.chars;
      this.chapterUnits += 1;
      this.chapterCursor += 1;
      // The last closed unit ends a run early: the units after it are still open.
      const longEnough = this.chapterUnits >= mode.chapterMinUnits || !index.isClosed(this.chapterCursor);
      const worthIt = this.chapterResidual >= settings.thresholds.minFoldChars && longEnough;
      if (worthIt || this.chapterUnits >= Math.max(CHAPTER_MAX_UNITS, mode.chapterMinUnits)) {
        const firstUnit = index.units[this.chapterStart]!;
        this.cut(inputs, cuts, 'chapter', firstUnit.first, unit.last);
        this.resetAccumulation(this.chapterCursor);
      }
    }
  }

  /**
   * docs/behaviour.md B2.5: once enough roots stand side by side, adjacent roots get a parent. A full
   * run (`consolidateAfter` adjacent roots of one level) goes first, the lowest level's
   * oldest; else the oldest run of two or more at the lowest level. So consolidations stack
   * like a balanced index (depth grows with the log of the folds, and so does the number of
   * roots the window shows) rather than one long chain, and a session that keeps adding
   * chapters does not keep every consolidation of them standing side by side.
   */
  private consolidationRung(inputs: FrontierInputs, cuts: PendingMarkV1[]): void {
    const { settings, lattice } = inputs;
    // The cheap refusals first: this runs every request, and a window with fewer visible
    // folds than the threshold cannot hold that many roots.
    if (!this.canCut(inputs, cuts) || inputs.visibleFolds.length < settings.thresholds.consolidateAfter) return;
    // Roots a waiting consolidation already covers are spoken for; the rest may get another,
    // so a session that adds chapters faster than one consolidation per commit keeps up.
    const waiting = waitingConsolidations(inputs);
    const { entries } = inputs.index;
    const roots = inputs.visibleFolds.filter(
      (placed) =>
        lattice.parentOf(placed.record.id) === undefined &&
        // The last render's folds, until the next one: after a branch switch some no longer stand.
        entries[placed.first]?.id === placed.record.firstEntryId &&
        entries[placed.last]?.id === placed.record.lastEntryId &&
        !waiting.some((span) => placed.first >= span.first && placed.last <= span.last),
    );
    if (roots.length < settings.thresholds.consolidateAfter) return;
    const levels = roots.map((root) => levelOf(lattice, root.record.id));
    const ascending = [...new Set(levels)].sort((a, b) => a - b);
    const full = settings.thresholds.consolidateAfter;
    const run =
      ascending.map((level) => oldestRun(roots, levels, level, full, full)).find((found) => found !== undefined) ??
      ascending.map((level) => oldestRun(roots, levels, level, 2, full)).find((found) => found !== undefined);
    if (run !== undefined) this.cut(inputs, cuts, 'consolidation', run[0]!.first, run[run.length - 1]!.last);
  }

  private cut(
    inputs: FrontierInputs,
    cuts: PendingMarkV1[],
    kind: PendingMarkV1['kind'],
    first: number,
    last: number,
  ): void {
    const { index, memory, lattice } = inputs;
    const firstEntryId = index.entries[first]!.id;
    const lastEntryId = index.entries[last]!.id;
    const id = foldIdOfSpan(index, kind, first, last);
    if (memory.markById(id) !== undefined || lattice.record(id) !== undefined) return;
    const mark: PendingMarkV1 = {
      id,
      kind,
      origin: 'runtime',
      firstEntryId,
      lastEntryId,
      cutAtRequest: inputs.request,
    };
    memory.addMark(mark);
    cuts.push(mark);
  }

  // A small run that ends at a pin or a held span is absorbed by the pending chapter just
  // before it when the two touch (docs/behaviour.md B2.4); otherwise it stays raw, being too small to matter.
  private flushSmallRun(inputs: FrontierInputs): void {
    if (this.chapterUnits === 0) return;
    const { index, memory, lattice } = inputs;
    const runFirst = index.units[this.chapterStart]!.first;
    const runLast = index.units[this.chapterStart + this.chapterUnits - 1]!.last;
    const previousPosition = runFirst - 1;
    const neighbour = memory.marks.find(
      (mark) =>
        mark.kind === 'chapter' &&
        mark.origin === 'runtime' &&
        mark.brief === undefined &&
        // A mark to refold a standing fold keeps that fold's span: it lands no new record.
        lattice.record(mark.id) === undefined &&
        index.positionOf(mark.lastEntryId) === previousPosition,
    );
    if (neighbour === undefined) return;
    const lastEntryId = index.entries[runLast]!.id;
    const merged: PendingMarkV1 = {
      ...neighbour,
      id: foldIdOfSpan(index, 'chapter', index.positionOf(neighbour.firstEntryId)!, runLast),
      lastEntryId,
    };
    memory.replaceMark(neighbour, merged);
  }

  private resetAccumulation(unitIndex: number): void {
    this.chapterStart = unitIndex;
    this.chapterResidual = 0;
    this.chapterUnits = 0;
  }

  /** Pinned entries, held spans, and chapter-level folds or marks already covering the span. */
  private isBlocked(inputs: FrontierInputs, first: number, last: number): boolean {
    const { index, memory, lattice } = inputs;
    for (let position = first; position <= last; position += 1) {
      if (memory.pins.has(index.entries[position]!.id) || index.entries[position]!.protected === true) return true;
    }
    for (const hold of memory.holds) {
      const holdFirst = index.positionOf(hold.firstEntryId);
      const holdLast = index.positionOf(hold.lastEntryId);
      if (holdFirst !== undefined && holdLast !== undefined && holdFirst <= last && first <= holdLast) return true;
    }
    if (this.markSpans === undefined || !this.markSpans.reads(index)) this.markSpans = new MarkSpans(index);
    if (this.markSpans.blocks(memory.marks, first, last)) return true;
    return (
      lattice
        .enclosing(first)
        .some((placed) => placed.record.kind !== 'tool' || (placed.first === first && placed.last === last)) ||
      lattice.enclosing(last).some((placed) => placed.record.kind !== 'tool')
    );
  }

  private holdsExpandedFold(inputs: FrontierInputs, unit: Unit): boolean {
    if (unit.kind !== 'tool-batch') return false;
    const placed = inputs.lattice.enclosing(unit.last).find((candidate) => candidate.record.kind === 'tool');
    return placed !== undefined && inputs.lattice.expanded.has(placed.record.id);
  }
}

/** What a unit still shows once its own tool fold (made or due) has landed. */
function residualChars(inputs: FrontierInputs, unit: Unit): number {
  const foldable =
    unit.kind === 'tool-batch' &&
    unit.resultChars >= inputs.settings.thresholds.minFoldChars &&
    !unit.toolNames.some((name) => inputs.settings.blacklistAutoFoldTools.has(name));
  if (!foldable) return unit.chars;
  const results = unit.last - unit.first;
  return unit.chars - unit.resultChars + results * STUB_CHARS_ESTIMATE;
}

/** The entry spans of the consolidation marks still waiting to commit. */
function waitingConsolidations(inputs: FrontierInputs): { first: number; last: number }[] {
  const spans: { first: number; last: number }[] = [];
  for (const mark of inputs.memory.marks) {
    if (mark.kind !== 'consolidation') continue;
    const first = inputs.index.positionOf(mark.firstEntryId);
    const last = inputs.index.positionOf(mark.lastEntryId);
    if (first !== undefined && last !== undefined) spans.push({ first, last });
  }
  return spans;
}

/** The oldest run of at least `least` adjacent roots of `level`, cut at `most`. */
function oldestRun(
  roots: readonly PlacedFold[],
  levels: readonly number[],
  level: number,
  least: number,
  most: number,
): PlacedFold[] | undefined {
  let run: PlacedFold[] = [];
  for (const [position, root] of roots.entries()) {
    const previous = run[run.length - 1];
    const fits = levels[position] === level;
    if (fits && previous !== undefined && previous.last + 1 === root.first) run.push(root);
    else if (run.length >= least) break;
    else run = fits ? [root] : [];
    if (run.length >= most) break;
  }
  return run.length >= least ? run : undefined;
}

/** 0 for tool and chapter folds; a consolidation sits one level above its highest child. */
function levelOf(lattice: FoldLattice, foldId: string): number {
  const record = lattice.record(foldId);
  if (record === undefined || record.kind !== 'consolidation') return 0;
  let level = 0;
  for (const part of record.parts) if (part.kind === 'fold') level = Math.max(level, levelOf(lattice, part.foldId));
  return level + 1;
}
