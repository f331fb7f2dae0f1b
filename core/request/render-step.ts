import type { ProjectedMessage } from '../../ports/projected-message.ts';
import type { CommitPlan } from '../commit/plan/planner.ts';
import type { FullRender, RenderInputs } from '../render/projection-renderer.ts';
import { appendDraft, rewriteDraft as draftFromMessages, pushMessage, type WindowDraft } from '../render/window-log.ts';
import type { SessionServices } from '../session/session-services.ts';
import type { SessionModel } from '../state/session-model.ts';
import { patchLandedSpans } from './render-patch.ts';
import { pruneHiddenInserts, retireSettledInserts } from './window-inserts.ts';

/** What rendering reads, and what a full render writes (the visible folds, pruned inserts). */
export interface RenderTarget {
  readonly model: Pick<SessionModel, 'frozenView' | 'pendingCauses' | 'index' | 'lattice' | 'memory' | 'showedFolds'>;
  readonly services: Pick<SessionServices, 'renderer'>;
  renderInputs(): RenderInputs;
}

/** The window before any commit, and the full render it came from when it is one. */
export interface CandidateWindow {
  readonly draft: WindowDraft;
  /** Set when the candidate is a full render (not an append): the commit step patches it. */
  readonly full: FullRender | undefined;
}

/**
 * The window before any commit: the frozen projection extended by the new entries, or a
 * full render when there is no frozen projection yet or a rewrite is queued.
 */
export function candidateDraft(target: RenderTarget, appendedFrom: number): CandidateWindow {
  const { frozenView, pendingCauses } = target.model;
  if (frozenView === undefined || pendingCauses.size > 0) {
    const full = renderWhole(target);
    return { draft: draftFromMessages(full.messages), full };
  }
  const added: ProjectedMessage[] = [];
  target.services.renderer.renderAppended(target.renderInputs(), appendedFrom, added);
  const draft = appendDraft(frozenView);
  for (const message of added) pushMessage(draft, message);
  return { draft, full: undefined };
}

/** A full render of the window as the forest and decisions stand; records the visible folds. */
function renderWhole(target: RenderTarget): FullRender {
  pruneHiddenInserts(target.model);
  const full = target.services.renderer.renderAll(target.renderInputs());
  target.model.showedFolds(full.visibleFolds);
  return full;
}

/**
 * The window after the commit step. The candidate stands unless a rewrite is now queued
 * that it does not show: a commit landed, or the candidate was an append. A full-render
 * candidate is patched where the commit folded rather than rendered again, so a request
 * renders the whole window at most once.
 */
export function finalDraft(
  target: RenderTarget,
  candidate: CandidateWindow,
  landed: CommitPlan | undefined,
): WindowDraft {
  if (target.model.pendingCauses.size === 0) return candidate.draft;
  const retired =
    landed === undefined
      ? undefined
      : retireSettledInserts(target.model, target.services.renderer, firstFolded(landed));
  if (candidate.full === undefined) return draftFromMessages(renderWhole(target).messages);
  if (landed === undefined) return candidate.draft;
  pruneHiddenInserts(target.model);
  const patched =
    patchLandedSpans(target, candidate.full, landed) ?? target.services.renderer.renderAll(target.renderInputs());
  target.model.showedFolds(patched.visibleFolds);
  const messages =
    retired === undefined || retired.size === 0
      ? patched.messages
      : patched.messages.filter((message) => !retired.has(message));
  return draftFromMessages(messages);
}

/** The first entry a commit folds: the window changes from there on. */
function firstFolded(plan: CommitPlan): number {
  let first = Number.POSITIVE_INFINITY;
  for (const fold of plan.folds) first = Math.min(first, fold.first);
  return first;
}
