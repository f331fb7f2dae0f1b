import type { PendingMarkV1 } from '../../ports/fold-records.ts';
import { FoldError } from '../fold-error.ts';
import { foldIdOfSpan } from '../folds/fold-ids.ts';
import { MAX_PENDING_MARKS } from '../state/engine-memory.ts';
import type { ActionCaller, ActionContext, ActionOutcome } from './action-context.ts';
import { guidanceInputs, requirePendingMark, unknownId } from './action-context.ts';
import { pinTargets } from './id-guidance.ts';

/** docs/behaviour.md B4.3: the agent's own words on a pending fold, kept verbatim until the commit writes them. */
export async function briefAction(session: ActionContext, id: string, text: string): Promise<ActionOutcome> {
  const mark = requirePendingMark(session, id, 'brief');
  if (session.lattice.record(id) !== undefined) {
    throw new FoldError('ACTION.NOT_PENDING', `brief: ${id} is a standing fold waiting to refold; its brief is fixed`, {
      details: { id },
    });
  }
  session.memory.replaceMark(mark, { ...mark, brief: text });
  return {
    text: `brief kept for ${id} (${text.length} chars); it reaches the window when the fold commits`,
    data: { id, chars: text.length },
    mutated: true,
  };
}

/** docs/behaviour.md B4.6: hold entries raw through every fold. Pins free nothing, so their share is capped. */
export async function pinAction(session: ActionContext, requested: readonly string[]): Promise<ActionOutcome> {
  const { index, lattice, memory } = session;
  // Mark and expanded-fold ids stand for the entries they cover; a collapsed fold is refused truly.
  const { entryIds: ids, expandedFrom } = pinTargets(guidanceInputs(session), requested);
  const positions = ids.map((id) => {
    const position = index.positionOf(id);
    if (position === undefined) throw unknownId(session, id, 'pin');
    const hiddenBy = lattice.enclosing(position).find((placed) => !lattice.expanded.has(placed.record.id));
    if (hiddenBy !== undefined) {
      throw new FoldError(
        'ACTION.NOT_EXPANDED',
        `pin: entry ${id} is inside collapsed fold ${hiddenBy.record.id}; expand it first`,
        { details: { id, foldId: hiddenBy.record.id } },
      );
    }
    return position;
  });
  // Pins are kept under the ids the engine knows entries by, whatever id the host now uses (B6.6).
  const knownIds = positions.map((position) => index.entries[position]!.id);
  const budget = session.lastBudget ?? session.settings.providerInputBudget;
  const pinned = new Set([...memory.pins, ...knownIds]);
  let pinnedChars = 0;
  for (const entryId of pinned) pinnedChars += index.windowChars[index.positionOf(entryId) ?? -1] ?? 0;
  const pinnedTokens = Math.ceil(session.estimator.tokensForChars(pinnedChars));
  // A commit must still be able to reach minTarget with every pinned byte left raw.
  if (budget !== undefined && pinnedTokens > session.settings.thresholds.minTarget * budget) {
    throw new FoldError(
      'ACTION.PIN_CAP',
      `pin: pinned entries would hold ≈${pinnedTokens} tokens, over the cap of ${Math.floor(session.settings.thresholds.minTarget * budget)} (minTarget × budget); unpin something first`,
      {
        details: { pinnedTokens, capTokens: Math.floor(session.settings.thresholds.minTarget * budget) },
      },
    );
  }
  const withdrawn: string[] = [];
  memory.keepMarksWhere((mark) => {
    const first = index.positionOf(mark.firstEntryId);
    const last = index.positionOf(mark.lastEntryId);
    const covers =
      first !== undefined &&
      last !== undefined &&
      positions.some((position) => unitOverlaps(session, position, first, last));
    if (covers) withdrawn.push(mark.id);
    return !covers;
  });
  for (const id of knownIds) memory.pin(id);
  session.frontier.rewindTo(index, Math.min(...positions));
  return {
    text: `pinned ${ids.length} entr${ids.length === 1 ? 'y' : 'ies'}${expandedFrom.length > 0 ? ` (covered by ${expandedFrom.map((span) => `${span.id}: ${span.entries}`).join(', ')})` : ''} (≈${pinnedTokens} tokens pinned in all)${withdrawn.length > 0 ? `; withdrew marks ${withdrawn.join(', ')}` : ''}`,
    data: { pinned: [...ids], withdrawn, pinnedTokens },
    mutated: true,
  };
}

// A pin protects its whole unit, because fold edges align to unit edges.
function unitOverlaps(session: ActionContext, position: number, first: number, last: number): boolean {
  const unit = session.index.units[session.index.unitOf[position]!]!;
  return unit.first <= last && first <= unit.last;
}

/** docs/behaviour.md B4.7: release pins; their units become foldable again. */
export async function unpinAction(session: ActionContext, requested: readonly string[]): Promise<ActionOutcome> {
  const ids = requested.map((id) => session.index.knownIdOf(id));
  for (const id of ids) {
    if (!session.memory.pins.has(id)) {
      throw new FoldError('ACTION.UNKNOWN_ID', `unpin: ${JSON.stringify(id.slice(0, 80))} is not pinned`, {
        details: { id: id.slice(0, 80) },
      });
    }
  }
  for (const id of ids) session.memory.unpin(id);
  const positions = ids
    .map((id) => session.index.positionOf(id))
    .filter((position): position is number => position !== undefined);
  if (positions.length > 0) session.frontier.rewindTo(session.index, Math.min(...positions));
  return { text: `unpinned ${ids.length}`, data: { unpinned: [...ids] }, mutated: true };
}

/** docs/behaviour.md B4.9: withdraw a pending mark. Its span stays raw: the session will not cut it again. */
export async function unmarkAction(session: ActionContext, id: string): Promise<ActionOutcome> {
  const mark = requirePendingMark(session, id, 'unmark');
  withdrawToRaw(session, mark);
  return { text: `withdrew ${id}; its span stays raw`, data: { id }, mutated: true };
}

function withdrawToRaw(session: ActionContext, mark: PendingMarkV1): void {
  const { index } = session;
  const first = index.positionOf(mark.firstEntryId);
  const last = index.positionOf(mark.lastEntryId);
  const isRefold = session.lattice.record(mark.id) !== undefined;
  // "Stays raw" must hold: a pending chapter around the span, or a tool mark inside it,
  // would otherwise fold it anyway at the next commit.
  session.memory.keepMarksWhere((candidate) => {
    if (candidate.id === mark.id) return false;
    if (isRefold || first === undefined || last === undefined) return true;
    const candidateFirst = index.positionOf(candidate.firstEntryId);
    const candidateLast = index.positionOf(candidate.lastEntryId);
    return (
      candidateFirst === undefined ||
      candidateLast === undefined ||
      candidateLast < first ||
      last < candidateFirst ||
      session.lattice.record(candidate.id) !== undefined
    );
  });
  // A withdrawn refold just leaves the fold expanded; a withdrawn cut is held raw.
  if (session.lattice.record(mark.id) === undefined) {
    session.memory.holdSpan({ firstEntryId: mark.firstEntryId, lastEntryId: mark.lastEntryId });
  }
}

/**
 * docs/behaviour.md B4.8: re-cut a span into exactly one pending fold. With one pending fold id, return its
 * span to raw. Ids may name entries, pending marks or standing folds; the span runs from
 * the first to the last of them, widened to unit edges.
 */
export async function reboundaryAction(
  session: ActionContext,
  ids: readonly string[],
  brief: string | undefined,
  caller: ActionCaller,
): Promise<ActionOutcome> {
  const { index, memory, lattice } = session;
  if (ids.length === 1 && memory.markById(ids[0]!) !== undefined) {
    if (brief !== undefined)
      throw new FoldError(
        'ACTION.INVALID_ARGUMENT',
        'reboundary: a single mark id returns its span to raw, so a brief has nothing to attach to',
      );
    return unmarkAction(session, ids[0]!);
  }
  const spans = ids.map((id) => spanOf(session, id));
  const first = index.units[index.unitOf[Math.min(...spans.map((span) => span.first))]!]!.first;
  const last = index.units[index.unitOf[Math.max(...spans.map((span) => span.last))]!]!.last;
  if (!index.isClosed(index.unitOf[last]!)) {
    throw new FoldError(
      'ACTION.PROTECTED',
      'reboundary: the span reaches the newest, still-open unit; open units never fold',
      { details: { lastEntryId: index.entries[last]!.id } },
    );
  }
  for (let position = first; position <= last; position += 1) {
    const entry = index.entries[position]!;
    if (memory.pins.has(entry.id))
      throw new FoldError('ACTION.PROTECTED', `reboundary: entry ${entry.id} in the span is pinned`, {
        details: { entryId: entry.id },
      });
    if (index.units[index.unitOf[position]!]!.protected)
      throw new FoldError('ACTION.PROTECTED', `reboundary: entry ${entry.id} in the span is protected`, {
        details: { entryId: entry.id },
      });
  }
  const check = lattice.checkNewSpan(first, last);
  if (!check.ok)
    throw new FoldError('ACTION.OVERLAP', `reboundary: ${check.reason}; folds nest and never partially overlap`, {
      details: { foldId: check.foldId },
    });
  const firstEntryId = index.entries[first]!.id;
  const lastEntryId = index.entries[last]!.id;
  const id = foldIdOfSpan(index, 'chapter', first, last);
  const replaced: string[] = [];
  const kept: PendingMarkV1[] = [];
  for (const mark of memory.marks) {
    const markFirst = index.positionOf(mark.firstEntryId);
    const markLast = index.positionOf(mark.lastEntryId);
    const overlaps = markFirst !== undefined && markLast !== undefined && markFirst <= last && first <= markLast;
    const innerTool = overlaps && mark.kind === 'tool' && first <= markFirst && markLast <= last;
    if (!overlaps || innerTool) {
      kept.push(mark);
      continue;
    }
    replaced.push(mark.id);
    // Splitting: the parts of an overlapped chapter outside the span stay cut on their own.
    if (mark.kind === 'chapter' && markFirst < first) kept.push(remainder(session, mark, markFirst, first - 1));
    if (mark.kind === 'chapter' && markLast > last) kept.push(remainder(session, mark, last + 1, markLast));
  }
  const newMark: PendingMarkV1 = {
    id,
    kind: 'chapter',
    origin: caller.origin ?? 'agent',
    firstEntryId,
    lastEntryId,
    cutAtRequest: memory.counters.requests,
    ...(brief === undefined ? {} : { brief }),
  };
  const marks = [...kept.filter((mark) => mark.id !== id), newMark];
  if (marks.length > MAX_PENDING_MARKS)
    throw new FoldError('ACTION.MARK_LIMIT', `reboundary: at most ${MAX_PENDING_MARKS} marks may wait at once`);
  memory.replaceMarks(marks);
  memory.keepHoldsWhere((hold) => {
    const holdFirst = index.positionOf(hold.firstEntryId);
    const holdLast = index.positionOf(hold.lastEntryId);
    return holdFirst === undefined || holdLast === undefined || holdLast < first || last < holdFirst;
  });
  return {
    text: `cut ${firstEntryId}…${lastEntryId} into pending fold ${id}${replaced.length > 0 ? `, replacing ${replaced.join(', ')}` : ''}`,
    data: { id, firstEntryId, lastEntryId, replaced },
    mutated: true,
  };
}

function remainder(session: ActionContext, mark: PendingMarkV1, first: number, last: number): PendingMarkV1 {
  const firstEntryId = session.index.entries[first]!.id;
  const lastEntryId = session.index.entries[last]!.id;
  const { brief: _dropped, ...rest } = mark;
  return { ...rest, id: foldIdOfSpan(session.index, 'chapter', first, last), firstEntryId, lastEntryId };
}

function spanOf(session: ActionContext, id: string): { first: number; last: number } {
  const { index } = session;
  const entryPosition = index.positionOf(id);
  if (entryPosition !== undefined) return { first: entryPosition, last: entryPosition };
  const mark = session.memory.markById(id);
  const firstId = mark?.firstEntryId ?? session.lattice.record(id)?.firstEntryId;
  const lastId = mark?.lastEntryId ?? session.lattice.record(id)?.lastEntryId;
  const first = firstId === undefined ? undefined : index.positionOf(firstId);
  const last = lastId === undefined ? undefined : index.positionOf(lastId);
  if (first === undefined || last === undefined) throw unknownId(session, id, 'reboundary');
  return { first, last };
}
