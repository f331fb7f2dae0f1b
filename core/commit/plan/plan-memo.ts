import type { FoldRecord, PendingMarkV1 } from '../../../ports/fold-records.ts';
import type { TranscriptEntry } from '../../../ports/transcript-source.port.ts';

/**
 * Memos for what the cost scheduler asks of the same spans on every request.
 *
 * Under `scheduling: 'cost'` each request measures the standing folds (what they show
 * collapsed) and, when a commit might pay off, plans one over every standing mark: fold
 * records with their source digests and briefs. Nothing of that changes between requests
 * while a mark or a fold stands, so each is computed once per object. Keys are the objects
 * themselves, held weakly, so a landed or withdrawn mark's memo goes with it; their types
 * (`PendingMarkV1`, `FoldRecord`: every field readonly) admit no edit in place, so a changed
 * mark or record is another object and misses the memo.
 */

/** Work the memos did, read by tests to show that a request costs what changed. */
export interface PlanMemoCounters {
  readonly collapsedComputed: number;
  readonly recordsBuilt: number;
  readonly sourceDigests: number;
}

/** The counters, written only in this file (so only where the work happens), read anywhere. */
const counters = { collapsedComputed: 0, recordsBuilt: 0, sourceDigests: 0 };

/** Process-wide counts (the memos are keyed by record and mark objects, not by session). */
export const planMemoCounters: PlanMemoCounters = counters;

/** Count one source digest computed (a record's SHA-256 read for the first time). */
export function countSourceDigest(): void {
  counters.sourceDigests += 1;
}

const collapsedByRecord = new WeakMap<FoldRecord, { readonly toolName: string; readonly chars: number }>();

/**
 * The chars a fold shows collapsed, computed once per record and tool name. A record
 * always covers the same entries (its parts name them by id, and an id names one set of
 * bytes), so the answer cannot change while the record stands.
 */
export function memoCollapsedChars(record: FoldRecord, toolName: string, compute: () => number): number {
  const known = collapsedByRecord.get(record);
  if (known !== undefined && known.toolName === toolName) return known.chars;
  counters.collapsedComputed += 1;
  const chars = compute();
  collapsedByRecord.set(record, { toolName, chars });
  return chars;
}

interface RecordMemo {
  /** The entries the record was built from (for a tool fold, the call first). */
  readonly entries: readonly TranscriptEntry[];
  readonly children: readonly FoldRecord[];
  readonly epoch: number;
  readonly record: FoldRecord;
}

const recordByMark = new WeakMap<PendingMarkV1, RecordMemo>();

/**
 * The fold record a mark becomes, built again only when something it is made of changed:
 * the entries on its span are other objects (the branch moved under it), its children
 * are other records (a child's brief changed), or a commit moved the epoch. Comparing references is
 * the check: entries are
 * immutable, so the same objects give the same digest and brief. Handing back the same
 * record object also keeps its collapsed size memoized.
 */
export function memoRecord(
  mark: PendingMarkV1,
  entries: readonly TranscriptEntry[],
  children: readonly FoldRecord[],
  epoch: number,
  build: () => FoldRecord,
): FoldRecord {
  const known = recordByMark.get(mark);
  if (
    known !== undefined &&
    known.epoch === epoch &&
    sameItems(known.children, children) &&
    sameItems(known.entries, entries)
  )
    return known.record;
  counters.recordsBuilt += 1;
  const record = build();
  recordByMark.set(mark, { entries, children, epoch, record });
  return record;
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  if (a.length !== b.length) return false;
  for (let position = 0; position < a.length; position += 1) if (a[position] !== b[position]) return false;
  return true;
}
