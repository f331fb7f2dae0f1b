import { collapsedChars, displayedChars } from '../commit/plan/planner.ts';
import { FoldError } from '../fold-error.ts';
import { readFoldBlob } from '../store/restore-folds.ts';
import { verifiedBlob } from '../store/verified-reads.ts';
import type { ActionCaller, ActionContext, ActionOutcome } from './action-context.ts';
import { guidanceInputs, unknownId } from './action-context.ts';
import { pendingMarkRefusal } from './id-guidance.ts';

/**
 * docs/behaviour.md B4.4: restore a standing fold in place, one level, outside-in. Every raw entry it
 * covers is verified in the store first, and the expansion is refused with the numbers
 * when it would push occupancy over maxTarget. Takes effect as a rewrite at the next request.
 */
export async function expandAction(session: ActionContext, id: string): Promise<ActionOutcome> {
  const { lattice } = session;
  const record = lattice.record(id);
  if (record === undefined) {
    if (session.memory.markById(id) !== undefined) throw pendingMarkRefusal(guidanceInputs(session), id, 'expand');
    throw unknownId(session, id, 'expand');
  }
  if (lattice.expanded.has(id))
    throw new FoldError('ACTION.ALREADY_EXPANDED', `expand: ${id} is already expanded`, { details: { id } });
  const placed = lattice.placement(id);
  if (placed === undefined)
    throw new FoldError('ACTION.UNKNOWN_ID', `expand: fold ${id} is not on the active branch`, { details: { id } });
  const hiddenBy = lattice
    .enclosing(placed.first)
    .find((outer) => outer.record.id !== id && outer.last >= placed.last && !lattice.expanded.has(outer.record.id));
  if (hiddenBy !== undefined) {
    throw new FoldError(
      'ACTION.NOT_EXPANDED',
      `expand: ${id} sits inside collapsed fold ${hiddenBy.record.id}; expand that one first (outside-in)`,
      { details: { id, parentId: hiddenBy.record.id } },
    );
  }
  const budget = session.lastBudget ?? session.settings.providerInputBudget;
  const inputs = { index: session.index, toolName: session.settings.toolName };
  const collapsed = collapsedChars(session.index, record, placed.first, placed.last, session.settings.toolName);
  const trial = lattice.clone();
  trial.expanded.add(id);
  const opened = displayedChars(inputs, trial, placed.first, placed.last);
  const addedTokens = Math.ceil(session.estimator.tokensForChars(opened - collapsed));
  const after = session.currentTokens() + addedTokens;
  if (budget !== undefined && after > session.settings.thresholds.maxTarget * budget) {
    throw new FoldError(
      'ACTION.OVER_BUDGET',
      `expand: ${id} would add about ${addedTokens} tokens and bring occupancy to ${Math.round((after / budget) * 100)}% (maxTarget ${Math.round(session.settings.thresholds.maxTarget * 100)}%); peek it instead, or peek a slice`,
      {
        details: { id, addedTokens, occupancyAfter: after / budget, maxTarget: session.settings.thresholds.maxTarget },
      },
    );
  }
  for (const part of record.parts)
    if (part.kind === 'entry')
      await readFoldBlob('expand', id, part.entryId, () => verifiedBlob(session.foldStore, part.sha256));
  lattice.expanded.add(id);
  session.memory.dropMarks(new Set([id]));
  session.queueRewrite('expand');
  return {
    text: `expanded ${id} (${record.kind}, ${record.entryCount} entries, ≈${addedTokens} tokens) — its source returns to the window at the next request; refold it with {"action":"refold","id":"${id}"}`,
    data: { id, addedTokens },
    mutated: true,
  };
}

/** docs/behaviour.md B4.5: collapse an expanded fold again, as a mark that lands at the next commit. */
export async function refoldAction(session: ActionContext, id: string, caller: ActionCaller): Promise<ActionOutcome> {
  const record = session.lattice.record(id);
  if (record === undefined) throw unknownId(session, id, 'refold');
  if (!session.lattice.expanded.has(id))
    throw new FoldError('ACTION.NOT_EXPANDED', `refold: ${id} is not expanded`, { details: { id } });
  if (session.memory.markById(id) !== undefined)
    throw new FoldError('ACTION.INVALID_ARGUMENT', `refold: ${id} is already marked to refold`, { details: { id } });
  const placed = session.lattice.placement(id);
  if (placed !== undefined) {
    for (let position = placed.first; position <= placed.last; position += 1) {
      const entryId = session.index.entries[position]!.id;
      if (session.memory.pins.has(entryId)) {
        throw new FoldError('ACTION.PROTECTED', `refold: entry ${entryId} inside ${id} is pinned; unpin it first`, {
          details: { id, entryId },
        });
      }
    }
  }
  session.memory.addMark({
    id,
    kind: record.kind,
    origin: caller.origin ?? 'agent',
    firstEntryId: record.firstEntryId,
    lastEntryId: record.lastEntryId,
    cutAtRequest: session.memory.counters.requests,
  });
  return { text: `marked ${id} to refold at the next commit`, data: { id }, mutated: true };
}
