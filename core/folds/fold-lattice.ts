/** Room core/folds/: committed folds, the lattice they form, their ids and their briefs. */

import type { FoldRecord } from '../../ports/fold-records.ts';
import { FoldError } from '../fold-error.ts';
import type { TranscriptIndex } from '../transcript/transcript-index.ts';

/** A committed fold resolved against the current branch: its entry index range. */
export interface PlacedFold {
  readonly record: FoldRecord;
  readonly first: number;
  readonly last: number;
}

/** A set of fold ids that tells its lattice when it changes (callers add to and delete from `expanded` directly). */
class ExpandedSet extends Set<string> {
  constructor(private readonly changed: () => void) {
    super();
  }

  override add(foldId: string): this {
    if (!this.has(foldId)) {
      super.add(foldId);
      this.changed();
    }
    return this;
  }

  override delete(foldId: string): boolean {
    const deleted = super.delete(foldId);
    if (deleted) this.changed();
    return deleted;
  }

  override clear(): void {
    if (this.size > 0) this.changed();
    super.clear();
  }
}

/**
 * The fold forest (docs/behaviour.md I3): committed folds nest and never partially overlap. Each fold has at
 * most one parent; a new fold adopts the roots inside its span as children and may never
 * sit inside an existing fold (records are immutable, so a parent cannot gain children).
 */
export class FoldLattice {
  private readonly records = new Map<string, FoldRecord>();
  private readonly parents = new Map<string, string>();
  /**
   * Moves on every change to what the branch shows folded (a fold added or placed, one
   * expanded or collapsed, the forest re-placed), so what is measured from the placement can
   * be kept until it moves.
   */
  revision = 0;
  readonly expanded: Set<string> = new ExpandedSet(() => {
    this.revision += 1;
  });
  private placed = new Map<string, PlacedFold>();
  // Committed folds whose span is not (yet) on the branch: placed once their entries arrive.
  private readonly unplaced = new Set<string>();
  /**
   * Folds whose entry ids are on the branch but with other bytes (another conversation under
   * the same session id, or a host that rewrote an entry under its old id). Never placed: a
   * brief must only ever stand for the exact bytes it was made from (docs/behaviour.md I2).
   */
  readonly mismatched = new Set<string>();
  // Folds starting at an entry index, outermost (longest span) first.
  private byStart = new Map<number, PlacedFold[]>();
  /**
   * The last position any placed fold covers (-1 when none is placed). A position after it is
   * inside no fold: that is most of what the frontier asks on each request (the units that
   * just closed), answered without a scan of every placed fold.
   */
  private lastCovered = -1;

  constructor(private readonly index: TranscriptIndex) {}

  get size(): number {
    return this.records.size;
  }

  record(foldId: string): FoldRecord | undefined {
    return this.records.get(foldId);
  }

  placement(foldId: string): PlacedFold | undefined {
    return this.placed.get(foldId);
  }

  parentOf(foldId: string): string | undefined {
    return this.parents.get(foldId);
  }

  allRecords(): IterableIterator<FoldRecord> {
    return this.records.values();
  }

  /**
   * Folds with no parent, in the order they were loaded (commit order for a restored session):
   * the roots of the forest, known from the records alone, before any transcript arrives.
   */
  rootRecords(): FoldRecord[] {
    return [...this.records.values()].filter((record) => !this.parents.has(record.id));
  }

  /** Collapsed folds all of whose ancestors are expanded: what a window of the whole branch shows as folds. */
  outermostCollapsed(): FoldRecord[] {
    const shown: FoldRecord[] = [];
    const visit = (record: FoldRecord): void => {
      if (!this.expanded.has(record.id)) {
        shown.push(record);
        return;
      }
      for (const part of record.parts) {
        const child = part.kind === 'fold' ? this.records.get(part.foldId) : undefined;
        if (child !== undefined) visit(child);
      }
    };
    for (const root of this.rootRecords()) visit(root);
    return shown;
  }

  /** Load committed folds (any order) and rebuild placement. */
  load(records: Iterable<FoldRecord>, expanded: Iterable<string>): void {
    for (const record of records) {
      this.records.set(record.id, record);
      for (const part of record.parts) if (part.kind === 'fold') this.parents.set(part.foldId, record.id);
    }
    for (const foldId of expanded) if (this.records.has(foldId)) this.expanded.add(foldId);
    this.resolve();
  }

  /**
   * Re-place every fold against the index (after a branch change). Folds whose span is not on this
   * branch are left out.
   */
  resolve(): void {
    this.revision += 1;
    this.placed = new Map();
    this.byStart = new Map();
    this.lastCovered = -1;
    this.unplaced.clear();
    this.mismatched.clear();
    for (const record of this.records.values()) this.place(record);
  }

  /**
   * Place folds whose entries have arrived since they were loaded or since the branch went
   * back before them (a restored session sees its branch only at the first request). Returns
   * the folds placed now. Costs nothing once every fold is placed.
   */
  placeArrived(): PlacedFold[] {
    if (this.unplaced.size === 0) return [];
    const arrived: PlacedFold[] = [];
    for (const foldId of [...this.unplaced]) {
      this.place(this.records.get(foldId)!);
      const placed = this.placed.get(foldId);
      if (placed !== undefined) arrived.push(placed);
    }
    return arrived;
  }

  /** `checkDigests` is off only for a fold just made from this index (it matches by construction). */
  private place(record: FoldRecord, checkDigests = true): void {
    const first = this.index.positionOf(record.firstEntryId);
    const last = this.index.positionOf(record.lastEntryId);
    if (first === undefined || last === undefined || last < first) {
      this.unplaced.add(record.id);
      return;
    }
    this.unplaced.delete(record.id);
    if (checkDigests && !this.matchesBranch(record)) {
      this.mismatched.add(record.id);
      return;
    }
    this.revision += 1;
    const placed: PlacedFold = { record, first, last };
    this.placed.set(record.id, placed);
    this.lastCovered = Math.max(this.lastCovered, last);
    const list = this.byStart.get(first) ?? [];
    list.push(placed);
    list.sort((a, b) => b.last - a.last);
    this.byStart.set(first, list);
  }

  /** Every entry the record (and each fold nested in it) holds is on the branch with the bytes it was folded from. */
  private matchesBranch(record: FoldRecord): boolean {
    for (const part of record.parts) {
      if (part.kind === 'fold') {
        const child = this.records.get(part.foldId);
        if (child !== undefined && !this.matchesBranch(child)) return false;
        continue;
      }
      const position = this.index.positionOf(part.entryId);
      if (position === undefined || this.index.shas[position] !== part.sha256) return false;
    }
    return true;
  }

  /**
   * The outermost collapsed fold that starts at `position`, for a renderer walking the
   * transcript in order (so every fold enclosing `position` from before is expanded).
   */
  collapsedStartingAt(position: number): PlacedFold | undefined {
    const candidates = this.byStart.get(position);
    if (candidates === undefined) return undefined;
    for (const candidate of candidates) {
      if (!this.expanded.has(candidate.record.id)) return candidate;
    }
    return undefined;
  }

  /** Every placed fold that contains entry `position`, outermost first. */
  enclosing(position: number): PlacedFold[] {
    if (position > this.lastCovered) return [];
    const found: PlacedFold[] = [];
    for (const placed of this.placed.values()) {
      if (placed.first <= position && position <= placed.last) found.push(placed);
    }
    return found.sort((a, b) => a.first - b.first || b.last - a.last);
  }

  /** True when entry `position` is hidden behind a collapsed fold. */
  isHidden(position: number): boolean {
    return this.enclosing(position).some((placed) => !this.expanded.has(placed.record.id));
  }

  /**
   * Explain why a new fold over [first, last] would break the forest, or return the direct
   * children it would adopt.
   */
  checkNewSpan(
    first: number,
    last: number,
  ): { ok: true; children: PlacedFold[] } | { ok: false; reason: string; foldId: string } {
    const children: PlacedFold[] = [];
    for (const placed of this.placed.values()) {
      if (placed.last < first || placed.first > last) continue;
      const inside = first <= placed.first && placed.last <= last;
      const same = placed.first === first && placed.last === last;
      if (same) return { ok: false, reason: `the span is exactly fold ${placed.record.id}`, foldId: placed.record.id };
      if (!inside) {
        const around = placed.first <= first && last <= placed.last;
        return {
          ok: false,
          reason: around
            ? `the span lies inside fold ${placed.record.id}`
            : `the span partially overlaps fold ${placed.record.id}`,
          foldId: placed.record.id,
        };
      }
      if (!this.parents.has(placed.record.id) || !this.isInside(this.parents.get(placed.record.id)!, first, last))
        children.push(placed);
    }
    return { ok: true, children: children.sort((a, b) => a.first - b.first) };
  }

  private isInside(foldId: string, first: number, last: number): boolean {
    const placed = this.placed.get(foldId);
    return placed !== undefined && first <= placed.first && placed.last <= last;
  }

  /** Replace the expanded set (a refused action puts the one it found back). */
  setExpanded(foldIds: Iterable<string>): void {
    this.expanded.clear();
    for (const foldId of foldIds) this.expanded.add(foldId);
  }

  /** Add a committed fold; its child folds get it as parent and lose their expanded flag. */
  add(record: FoldRecord): void {
    if (this.records.has(record.id)) {
      throw new FoldError('INVARIANT.BROKEN', `fold ${record.id} is already committed`, {
        details: { foldId: record.id },
      });
    }
    this.records.set(record.id, record);
    for (const part of record.parts) {
      if (part.kind !== 'fold') continue;
      this.parents.set(part.foldId, record.id);
      this.expanded.delete(part.foldId);
    }
    this.place(record, false);
  }

  /** A copy for planning: adding folds to it leaves this lattice untouched. */
  clone(): FoldLattice {
    const copy = new FoldLattice(this.index);
    for (const [id, record] of this.records) copy.records.set(id, record);
    for (const [child, parent] of this.parents) copy.parents.set(child, parent);
    for (const id of this.expanded) copy.expanded.add(id);
    copy.placed = new Map(this.placed);
    copy.byStart = new Map([...this.byStart].map(([start, list]) => [start, [...list]]));
    copy.lastCovered = this.lastCovered;
    return copy;
  }
}

/** The fold forest, read only: records, where they sit on the branch, and which are expanded. */
export type FoldLatticeView = Pick<
  FoldLattice,
  | 'size'
  | 'record'
  | 'placement'
  | 'parentOf'
  | 'allRecords'
  | 'enclosing'
  | 'isHidden'
  | 'collapsedStartingAt'
  | 'checkNewSpan'
  | 'clone'
  | 'outermostCollapsed'
  | 'rootRecords'
  | 'revision'
> & {
  readonly expanded: ReadonlySet<string>;
};
