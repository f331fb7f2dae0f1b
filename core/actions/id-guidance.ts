import { FoldError } from '../fold-error.ts';
import type { FoldLatticeView, PlacedFold } from '../folds/fold-lattice.ts';
import type { EngineMemoryView } from '../state/engine-memory.ts';
import type { TranscriptIndexView } from '../transcript/transcript-index.ts';

/**
 * Ids the agent meets in the window are of three kinds (entries, pending marks, committed
 * folds), and a verb that takes one kind should either accept another kind's id for what it
 * covers or say truly why not, naming ids that would work: an agent told only "unknown id"
 * or "still raw" guesses again, and may spend many refused calls in a row doing so.
 */

/** What the id-guidance helpers read: the branch, the forest and the marks. */
export interface IdGuidanceInputs {
  readonly index: TranscriptIndexView;
  readonly lattice: FoldLatticeView;
  readonly memory: Pick<EngineMemoryView, 'marks' | 'markById'>;
  readonly toolName: string;
}

/** How many nearby folds a refusal names. */
const NEAREST_FOLDS = 2;

/**
 * The committed folds nearest to a span on the branch, nearest first: what an agent that
 * wanted to read "around there" can peek instead.
 */
export function nearestCommittedFolds(inputs: IdGuidanceInputs, first: number, last: number): PlacedFold[] {
  const placed: PlacedFold[] = [];
  for (const record of inputs.lattice.allRecords()) {
    const found = inputs.lattice.placement(record.id);
    if (found !== undefined) placed.push(found);
  }
  const distance = (fold: PlacedFold) =>
    fold.last < first ? first - fold.last : fold.first > last ? fold.first - last : 0;
  return placed.sort((a, b) => distance(a) - distance(b) || a.first - b.first).slice(0, NEAREST_FOLDS);
}

/** The refusal for peeking or expanding a pending mark, naming the committed folds near it. */
export function pendingMarkRefusal(inputs: IdGuidanceInputs, id: string, verb: string): FoldError {
  const mark = inputs.memory.markById(id)!;
  const first = inputs.index.positionOf(mark.firstEntryId) ?? 0;
  const last = inputs.index.positionOf(mark.lastEntryId) ?? first;
  const nearest = nearestCommittedFolds(inputs, first, last).map((fold) => fold.record.id);
  const hint =
    nearest.length === 0
      ? 'no fold is committed yet, so there is nothing to peek; read the entries in the window'
      : `committed folds nearest to it: ${nearest.map((foldId) => `${foldId} ({"action":"${verb}","id":"${foldId}"})`).join(', ')}`;
  return new FoldError(
    'ACTION.NOT_COMMITTED',
    `${verb}: ${id} is a pending mark; its entries are still raw in the window, read them there; ${hint}`,
    { details: { id, nearestFolds: nearest } },
  );
}

/**
 * The entry ids a `pin` of these ids holds raw. An entry id stands for itself; a pending mark's
 * id for every entry of its span (pinning it withdraws the mark); an expanded fold's id for
 * the entries it shows raw (a child fold still collapsed inside it is left as it is). A collapsed
 * fold's entries are not in the
 * window, so pinning cannot keep them raw: that is refused with the call that would help.
 */
export function pinTargets(
  inputs: IdGuidanceInputs,
  ids: readonly string[],
): { readonly entryIds: string[]; readonly expandedFrom: readonly { id: string; entries: number }[] } {
  const entryIds: string[] = [];
  const expandedFrom: { id: string; entries: number }[] = [];
  for (const id of ids) {
    if (inputs.index.positionOf(id) !== undefined) {
      entryIds.push(id);
      continue;
    }
    const span = spanOf(inputs, id, 'pin');
    // Entries inside a child fold that is still collapsed are not in the window: they stay as they are.
    const covered: string[] = [];
    for (let position = span.first; position <= span.last; position += 1)
      if (!inputs.lattice.isHidden(position)) covered.push(inputs.index.entries[position]!.id);
    entryIds.push(...covered);
    expandedFrom.push({ id, entries: covered.length });
  }
  return { entryIds: [...new Set(entryIds)], expandedFrom };
}

function spanOf(inputs: IdGuidanceInputs, id: string, verb: string): { first: number; last: number } {
  const mark = inputs.memory.markById(id);
  if (mark !== undefined) {
    const first = inputs.index.positionOf(mark.firstEntryId);
    const last = inputs.index.positionOf(mark.lastEntryId);
    if (first !== undefined && last !== undefined) return { first, last };
    throw new FoldError(
      'ACTION.UNKNOWN_ID',
      `${verb}: pending mark ${id} covers entries that are not on the active branch`,
      { details: { id } },
    );
  }
  const record = inputs.lattice.record(id);
  if (record === undefined) {
    throw new FoldError(
      'ACTION.UNKNOWN_ID',
      `${verb}: ${JSON.stringify(id.slice(0, 80))} is not an entry, pending mark or fold of this session; status with detail "tree" lists the raw entry ids you can pin`,
      { details: { id: id.slice(0, 80) } },
    );
  }
  const placed = inputs.lattice.placement(id);
  if (placed === undefined)
    throw new FoldError('ACTION.UNKNOWN_ID', `${verb}: fold ${id} is not on the active branch`, { details: { id } });
  const collapsed =
    !inputs.lattice.expanded.has(id) ||
    inputs.lattice
      .enclosing(placed.first)
      .some(
        (outer) => outer.record.id !== id && outer.last >= placed.last && !inputs.lattice.expanded.has(outer.record.id),
      );
  if (collapsed) {
    throw new FoldError(
      'ACTION.NOT_EXPANDED',
      `${verb}: ${id} is a committed fold and its entries are folded out of the window; a pin holds raw entries, so expand it first ({"action":"expand","id":"${id}"}), then pin it or the entries you need`,
      { details: { id } },
    );
  }
  return placed;
}

/** Raw units of the window a `pin` can name, newest last, as lines for `status` (tree detail). */
export function pinnableEntries(
  inputs: Pick<IdGuidanceInputs, 'index' | 'lattice'>,
  limit: number,
): { readonly rows: { entryId: string; role: string; chars: number; preview: string }[]; readonly total: number } {
  const rows: { entryId: string; role: string; chars: number; preview: string }[] = [];
  const { index, lattice } = inputs;
  // One pass over the forest marks what collapsed folds hide, instead of a lookup per entry.
  const hiddenDepth = new Int32Array(index.entries.length + 1);
  for (const record of lattice.allRecords()) {
    const placed = lattice.placement(record.id);
    if (placed === undefined || lattice.expanded.has(record.id)) continue;
    hiddenDepth[placed.first]! += 1;
    hiddenDepth[placed.last + 1]! -= 1;
  }
  let depth = 0;
  for (let position = 0; position < index.entries.length; position += 1) {
    depth += hiddenDepth[position]!;
    if (depth > 0) continue;
    const entry = index.entries[position]!;
    rows.push({ entryId: entry.id, role: entry.role, chars: entry.bytes.length, preview: previewOf(entry.bytes) });
  }
  return { rows: rows.slice(-limit), total: rows.length };
}

function previewOf(bytes: string): string {
  const text = bytes.replace(/\s+/g, ' ');
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}
