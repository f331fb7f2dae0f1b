import type { PendingMarkV1 } from '../../../ports/fold-records.ts';
import type { TranscriptIndexView } from '../../transcript/transcript-index.ts';

/**
 * Chars per token the floor is measured with: never fewer than Pi's own estimate (4), so the
 * floor holds at least as many tokens as Pi's `keepRecentTokens` would by Pi's count.
 */
const FLOOR_MIN_CHARS_PER_TOKEN = 4;

/**
 * A floor never holds more than this share of the budget (docs/cost-scheduling.md, "Small
 * budgets"). A commit leaves A = floor + the rest (system prompt, tool schemas, briefs) and
 * re-sends at most A; the next fires once the window has climbed back to the trigger (0.80 of
 * the budget). With a quarter, the climb is at least A while the rest stays under 15 % of the
 * budget, so spread over the climb a rewrite costs each request at most (f − r)·g: its own
 * inflow entering the cache once more. At half the budget a commit barely gets under the
 * trigger, so a small window would commit on most requests. The full 20,000-token floor holds
 * from an 80k budget up.
 */
export const FLOOR_MAX_BUDGET_SHARE = 0.25;

/** The floor in force: the setting, or a quarter of the budget where that is smaller. */
export function floorTokensFor(rawFloorTokens: number, budgetTokens: number): number {
  return Math.min(rawFloorTokens, Math.floor(FLOOR_MAX_BUDGET_SHARE * budgetTokens));
}

/**
 * The first transcript position inside the raw working-set floor (docs/behaviour.md B3.2): the entries from it
 * to the end are the newest `floorTokens` of transcript, and no automatic commit folds any of
 * them. `index.length` when the floor is off.
 */
export function rawFloorStart(
  index: Pick<TranscriptIndexView, 'length' | 'readCharsBefore'>,
  floorTokens: number,
  charsPerToken: number,
): number {
  if (floorTokens <= 0) return index.length;
  const floorChars = floorTokens * Math.max(FLOOR_MIN_CHARS_PER_TOKEN, charsPerToken);
  // What the model reads of an entry: a spilled result counts its head and tail, not its full
  // size, and a host's bookkeeping in the bytes (usage, timestamps) counts for nothing, as in
  // Pi's own estimate (TranscriptIndex.readCharsBefore). The chars from a position to the end
  // only grow as the position moves back, so the newest position holding the floor is found
  // by halving: the last position p with read(p..end) >= floorChars, or 0 when none has.
  const before = index.readCharsBefore;
  const total = before[index.length]!;
  if (index.length === 0 || total - before[0]! < floorChars) return 0;
  let holds = 0;
  let fails = index.length;
  while (fails - holds > 1) {
    const middle = (holds + fails) >>> 1;
    if (total - before[middle]! >= floorChars) holds = middle;
    else fails = middle;
  }
  return holds;
}

/** A standing mark with its span's positions on the current branch. */
export interface PlacedMark {
  readonly mark: PendingMarkV1;
  readonly first: number;
  readonly last: number;
}

/** Marks an automatic commit may land: on this branch and ending before the floor. */
export function marksOutsideFloor(
  index: TranscriptIndexView,
  marks: readonly PendingMarkV1[],
  floorStart: number,
): PlacedMark[] {
  const placed: PlacedMark[] = [];
  for (const mark of marks) {
    const first = index.positionOf(mark.firstEntryId);
    const last = index.positionOf(mark.lastEntryId);
    if (first === undefined || last === undefined || last >= floorStart) continue;
    placed.push({ mark, first, last });
  }
  return placed;
}

/**
 * An upper bound on the chars landing `marks` frees: everything their spans show now, as if
 * each folded to nothing. Cheap (no fold record is built), so the scheduler can rule a commit
 * out on most requests before planning one. `shownChars(first, last)` is what positions
 * [first, last] show (`displayedChars`, or the scheduler's memo of it).
 */
export function freeableCharsBound(
  shownChars: (first: number, last: number) => number,
  marks: readonly PlacedMark[],
): number {
  const spans = [...marks].sort((a, b) => a.first - b.first);
  let chars = 0;
  let coveredTo = -1;
  for (const { first, last } of spans) {
    const from = Math.max(first, coveredTo + 1);
    if (from <= last) chars += shownChars(from, last);
    coveredTo = Math.max(coveredTo, last);
  }
  return chars;
}
