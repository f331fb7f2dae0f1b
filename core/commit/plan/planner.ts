/** Room core/commit/: landing marks, when (policy/), what (plan/), the budget fence and the writes (apply/). */

import type { FoldPart, FoldRecord, PendingMarkV1 } from '../../../ports/fold-records.ts';
import type { TranscriptEntry } from '../../../ports/transcript-source.port.ts';
import { chapterBrief, consolidationBrief, toolBrief } from '../../folds/briefs.ts';
import type { FoldLattice, FoldLatticeView, PlacedFold } from '../../folds/fold-lattice.ts';
import { placeholderText, siblingStubText } from '../../render/window-text.ts';
import type { EngineMemoryView } from '../../state/engine-memory.ts';
import type { TranscriptIndexView } from '../../transcript/transcript-index.ts';
import { sha256HexOfLines, stableStringify } from '../../util/hashing.ts';
import { countSourceDigest, memoCollapsedChars, memoRecord } from './plan-memo.ts';

/** One mark turned into the fold record it will become. */
export interface PlannedFold {
  readonly mark: PendingMarkV1;
  readonly record: FoldRecord;
  readonly first: number;
  readonly last: number;
  /** Chars the window loses when this fold lands on top of the folds planned before it. */
  readonly savedChars: number;
  /** True when the mark refolds an expanded standing fold (no new record to write). */
  readonly collapseOnly: boolean;
}

export interface CommitPlan {
  readonly folds: readonly PlannedFold[];
  /** Marks that can no longer land (their span broke a rule since they were cut), with why. */
  readonly dropped: readonly DroppedMark[];
  readonly savedChars: number;
}

/** A mark that cannot land now; `permanent` when it never will (it is withdrawn). */
export interface DroppedMark {
  readonly mark: PendingMarkV1;
  readonly reason: string;
  readonly permanent: boolean;
}

export interface PlanInputs {
  readonly index: TranscriptIndexView;
  readonly lattice: FoldLatticeView;
  readonly memory: EngineMemoryView;
  readonly toolName: string;
  readonly epoch: number;
  /** Stop once this many chars are freed; `Infinity` lands every valid mark. */
  readonly charsToFree: number;
  /** Only these marks are candidates (default: all). */
  readonly onlyMarkIds?: ReadonlySet<string>;
  /** Land at most this many folds (the `immediate` ablation lands one per request). */
  readonly maxFolds?: number;
}

/**
 * Plan a commit (docs/behaviour.md B3.1, B3.2): marks stalest first, children before parents, until enough is
 * freed. Pure: returns data and touches no port; the caller applies it.
 */
export function planCommit(inputs: PlanInputs): CommitPlan {
  const { index, memory } = inputs;
  const virtual = inputs.lattice.clone();
  const candidates = memory.marks
    .filter((mark) => inputs.onlyMarkIds === undefined || inputs.onlyMarkIds.has(mark.id))
    .map((mark) => ({ mark, first: index.positionOf(mark.firstEntryId), last: index.positionOf(mark.lastEntryId) }))
    .filter(
      (candidate): candidate is { mark: PendingMarkV1; first: number; last: number } =>
        candidate.first !== undefined && candidate.last !== undefined,
    )
    // Ending earliest first puts a child before the parent that contains it; among equal
    // ends the later start (the inner span) goes first.
    .sort((a, b) => a.last - b.last || b.first - a.first || (a.mark.id < b.mark.id ? -1 : 1));
  const folds: PlannedFold[] = [];
  const dropped: DroppedMark[] = [];
  let saved = 0;
  for (const { mark, first, last } of candidates) {
    if (saved >= inputs.charsToFree || folds.length >= (inputs.maxFolds ?? Number.POSITIVE_INFINITY)) break;
    const standing = virtual.record(mark.id);
    if (standing !== undefined) {
      const collapse = planCollapse(inputs, virtual, mark, standing, first, last);
      if ('reason' in collapse) dropped.push({ mark, reason: collapse.reason, permanent: true });
      else {
        saved += collapse.savedChars;
        folds.push(collapse);
      }
      continue;
    }
    const problem = spanProblem(inputs, virtual, mark, first, last);
    if (problem !== undefined) {
      dropped.push({ mark, reason: problem.reason, permanent: problem.permanent });
      continue;
    }
    const check = virtual.checkNewSpan(first, last);
    if (!check.ok) {
      dropped.push({ mark, reason: check.reason, permanent: true });
      continue;
    }
    const record = buildRecord(inputs, virtual, mark, first, last, check.children);
    const before = displayedChars(inputs, virtual, first, last);
    const after = collapsedChars(index, record, first, last, inputs.toolName);
    if (after >= before) {
      dropped.push({ mark, reason: 'folding it would not make the window smaller', permanent: true });
      continue;
    }
    virtual.add(record);
    saved += before - after;
    folds.push({ mark, record, first, last, savedChars: before - after, collapseOnly: false });
  }
  return { folds, dropped, savedChars: saved };
}

function planCollapse(
  inputs: PlanInputs,
  virtual: FoldLattice,
  mark: PendingMarkV1,
  record: FoldRecord,
  first: number,
  last: number,
): PlannedFold | { reason: string } {
  if (!virtual.expanded.has(record.id)) return { reason: `fold ${record.id} is already collapsed` };
  for (let position = first; position <= last; position += 1) {
    if (inputs.memory.pins.has(inputs.index.entries[position]!.id))
      return { reason: `entry ${inputs.index.entries[position]!.id} inside it is pinned` };
  }
  const before = displayedChars(inputs, virtual, first, last);
  virtual.expanded.delete(record.id);
  const after = displayedChars(inputs, virtual, first, last);
  return { mark, record, first, last, savedChars: before - after, collapseOnly: true };
}

function spanProblem(
  inputs: PlanInputs,
  virtual: FoldLattice,
  mark: PendingMarkV1,
  first: number,
  last: number,
): { reason: string; permanent: boolean } | undefined {
  const lastUnit = inputs.index.unitOf[last];
  if (last >= first && lastUnit !== undefined && !inputs.index.isClosed(lastUnit))
    return { reason: 'its last unit is still open', permanent: false };
  const reason = permanentSpanProblem(inputs, virtual, mark, first, last);
  return reason === undefined ? undefined : { reason, permanent: true };
}

function permanentSpanProblem(
  inputs: PlanInputs,
  virtual: FoldLattice,
  mark: PendingMarkV1,
  first: number,
  last: number,
): string | undefined {
  const { index, memory } = inputs;
  if (last < first) return 'its span is reversed on this branch';
  const lastUnit = index.unitOf[last]!;
  if (index.units[index.unitOf[first]!]!.first !== first && mark.kind !== 'tool') return 'its start is not a unit edge';
  if (index.units[lastUnit]!.last !== last) return 'its end is not a unit edge';
  for (let position = first; position <= last; position += 1) {
    const entry = index.entries[position]!;
    if (memory.pins.has(entry.id)) return `entry ${entry.id} is pinned`;
    if (entry.protected === true) return `entry ${entry.id} is protected`;
    if (index.units[index.unitOf[position]!]!.protected) return `entry ${entry.id} belongs to a protected unit`;
  }
  if (mark.kind === 'tool') {
    const unit = index.units[lastUnit]!;
    if (unit.kind !== 'tool-batch' || unit.first + 1 !== first)
      return 'a tool fold must cover exactly the results of one tool batch';
  }
  if (mark.kind === 'consolidation') {
    const check = virtual.checkNewSpan(first, last);
    if (
      check.ok &&
      (check.children.length < 2 || check.children.some((child) => virtual.expanded.has(child.record.id)))
    ) {
      return 'a consolidation needs two or more collapsed folds';
    }
  }
  return undefined;
}

function buildRecord(
  inputs: PlanInputs,
  _virtual: FoldLattice,
  mark: PendingMarkV1,
  first: number,
  last: number,
  children: readonly PlacedFold[],
): FoldRecord {
  const { index } = inputs;
  const entries = index.entries.slice(first, last + 1);
  const call = mark.kind === 'tool' ? index.entries[first - 1]! : undefined;
  // The tool brief also reads the call, so the call is part of what the memo compares.
  const madeOf = call === undefined ? entries : [call, ...entries];
  // Children by record object: a child whose brief changed is a new record under the same id.
  const childRecords = children.map((child) => child.record);
  return memoRecord(mark, madeOf, childRecords, inputs.epoch, () =>
    newRecord(inputs, mark, entries, call, first, children),
  );
}

function newRecord(
  inputs: PlanInputs,
  mark: PendingMarkV1,
  entries: readonly TranscriptEntry[],
  call: TranscriptEntry | undefined,
  first: number,
  children: readonly PlacedFold[],
): FoldRecord {
  const { index } = inputs;
  const parts: FoldPart[] = [];
  let childPosition = 0;
  const last = first + entries.length - 1;
  for (let position = first; position <= last; position += 1) {
    const child = children[childPosition];
    if (child !== undefined && child.first === position) {
      parts.push({ kind: 'fold', foldId: child.record.id });
      position = child.last;
      childPosition += 1;
      continue;
    }
    parts.push({
      kind: 'entry',
      entryId: index.entries[position]!.id,
      sha256: index.shas[position]!,
      chars: index.entries[position]!.bytes.length,
    });
  }
  let sourceChars = 0;
  for (const entry of entries) sourceChars += entry.bytes.length;
  // The digest is computed when first read (the record lands, is written or is peeked), not
  // here: the cost scheduler plans a record for each new mark on every request to price a
  // commit, and pricing reads only the brief and sizes: hashing a large span on every request
  // would make pricing cost the span, not what changed.
  let sourceSha256: string | undefined;
  let unhashed: readonly TranscriptEntry[] | undefined = entries;
  const deterministic =
    mark.kind === 'tool'
      ? toolBrief(call!, entries)
      : mark.kind === 'chapter'
        ? chapterBrief(entries)
        : consolidationBrief(
            children.map((child) => ({ id: child.record.id, kind: child.record.kind, brief: child.record.brief })),
          );
  return {
    schemaVersion: 1,
    id: mark.id,
    kind: mark.kind,
    origin: mark.origin,
    firstEntryId: mark.firstEntryId,
    lastEntryId: mark.lastEntryId,
    parts,
    get sourceSha256(): string {
      if (sourceSha256 === undefined) {
        countSourceDigest();
        sourceSha256 = sourceDigest(unhashed!).sha256;
        unhashed = undefined;
      }
      return sourceSha256;
    },
    sourceChars,
    entryCount: entries.length,
    brief: mark.brief ?? deterministic,
    provenance: mark.brief === undefined ? 'deterministic' : 'supplied',
    ...(mark.kind === 'tool'
      ? { toolCalls: entries.map((entry) => ({ toolCallId: entry.toolCallId ?? '', toolName: entry.toolName ?? '' })) }
      : {}),
    epoch: inputs.epoch,
  };
}

/** A fold's source: every covered entry's exact bytes, one per line, hashed as one document. */
export function sourceDigest(entries: readonly TranscriptEntry[]): { sha256: string; chars: number } {
  let chars = 0;
  for (const entry of entries) chars += entry.bytes.length;
  return { sha256: sha256HexOfLines(entries.map((entry) => entry.bytes)), chars };
}

/** Chars the span shows right now under `lattice` (folds inside it collapsed as they stand). */
export function displayedChars(
  inputs: { index: TranscriptIndexView; toolName: string },
  lattice: Pick<FoldLatticeView, 'collapsedStartingAt'>,
  first: number,
  last: number,
): number {
  let chars = 0;
  for (let position = first; position <= last; position += 1) {
    const folded = lattice.collapsedStartingAt(position);
    if (folded !== undefined && folded.last <= last) {
      chars += collapsedChars(inputs.index, folded.record, folded.first, folded.last, inputs.toolName);
      position = folded.last;
      continue;
    }
    chars += inputs.index.windowChars[position]!;
  }
  return chars;
}

/** Chars a fold shows when collapsed: one placeholder, or one stub per folded result. */
export function collapsedChars(
  index: TranscriptIndexView,
  record: FoldRecord,
  first: number,
  last: number,
  toolName: string,
): number {
  return memoCollapsedChars(record, toolName, () => measureCollapsed(index, record, first, last, toolName));
}

/** Any digest measures the same: the placeholder shows 12 of its hex chars, which JSON never escapes. */
const DIGEST_STAND_IN = '0'.repeat(64);

function measureCollapsed(
  index: TranscriptIndexView,
  record: FoldRecord,
  first: number,
  last: number,
  toolName: string,
): number {
  // The stand-in keeps the size from reading (and so hashing) a planned record's digest.
  const text = placeholderText({
    foldId: record.id,
    kind: record.kind,
    brief: record.brief,
    sourceChars: record.sourceChars,
    entryCount: record.entryCount,
    sourceSha256: DIGEST_STAND_IN,
    toolName,
  });
  if (record.kind !== 'tool') return stableStringify({ role: 'user', text }).length;
  let chars = 0;
  for (let position = first; position <= last; position += 1) {
    const entry = index.entries[position]!;
    const stubText = position === first ? text : siblingStubText(record.id);
    chars += stableStringify({
      role: 'toolResult',
      text: stubText,
      toolCallId: entry.toolCallId ?? '',
      toolName: entry.toolName ?? '',
    }).length;
  }
  return chars;
}
