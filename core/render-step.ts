import type { ProjectedMessage } from '../ports/shared-types.ts';
import type { SessionState } from './session-state.ts';
import { pruneHiddenInserts } from './window-inserts.ts';
import { appendDraft, pushMessage, rewriteDraft as draftFromMessages, type WindowDraft } from './window-log.ts';

/** What rendering reads, and what a full render writes (the visible folds, pruned inserts). */
export type RenderTarget = Pick<SessionState, 'frozenView' | 'pendingCauses' | 'renderer' | 'renderInputs' | 'index' | 'lattice' | 'memory' | 'visibleFolds'>;

/**
 * The window before any commit: the frozen projection extended by the new entries, or a
 * full render when there is no frozen projection yet or a rewrite is queued.
 */
export function candidateDraft(target: RenderTarget, appendedFrom: number): WindowDraft {
  if (target.frozenView === undefined || target.pendingCauses.size > 0) return rewriteDraft(target);
  const added: ProjectedMessage[] = [];
  target.renderer.renderAppended(target.renderInputs(), appendedFrom, added);
  const draft = appendDraft(target.frozenView);
  for (const message of added) pushMessage(draft, message);
  return draft;
}

/** A full render of the window as the forest and decisions stand; records the visible folds. */
export function rewriteDraft(target: RenderTarget): WindowDraft {
  pruneHiddenInserts(target);
  const { messages, visibleFolds } = target.renderer.renderAll(target.renderInputs());
  target.visibleFolds = visibleFolds;
  return draftFromMessages(messages);
}

/**
 * The window after the commit step. The candidate stands unless a rewrite is now queued
 * that it does not show: a commit landed, or the candidate was an append. A candidate that
 * was already a full render of the same forest is reused, so a request renders once.
 */
export function finalDraft(target: RenderTarget, candidate: WindowDraft, foldsLanded: number): WindowDraft {
  if (target.pendingCauses.size === 0) return candidate;
  const candidateIsFullRender = candidate.extendsFrozen === undefined;
  if (candidateIsFullRender && foldsLanded === 0) return candidate;
  return rewriteDraft(target);
}
