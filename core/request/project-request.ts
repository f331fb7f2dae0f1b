/** Room core/request/: one request's steps in order, from reading the branch to handing the window out. */

import type { ProjectedMessage } from '../../ports/projected-message.ts';
import type { FoldWarning, LedgerRow, ProjectionResult, RequestContext } from '../../ports/shared-types.ts';
import type { BranchRead } from '../../ports/transcript-source.port.ts';
import { landCommit } from '../commit/apply/land.ts';
import { prewritePendingMarks } from '../commit/apply/store-writes.ts';
import { cutForFence } from '../commit/fence.ts';
import type { CommitPlan } from '../commit/plan/planner.ts';
import { planRequestCommit } from '../commit/plan/request-plan.ts';
import { budgetExceeded } from '../pricing/budget.ts';
import { ledgerRow } from '../render/projection-ledger.ts';
import { freeze, lazyProjection, type WindowDraft } from '../render/window-log.ts';
import type { SessionState } from '../session/session-state.ts';
import type { SessionModel } from '../state/session-model.ts';
import { rememberRequestContext } from '../state/stored-request-context.ts';
import { lostFoldsWarning } from '../store/restore-folds.ts';
import { storeRemedy } from '../store/store-outage.ts';
import { windowMaterial } from '../transcript/window-material.ts';
import {
  checkRestoredConversation,
  conversationMismatchWarning,
  updateTranscriptAnchor,
} from './conversation-check.ts';
import { decideOnArrival, ingestBranch } from './ingest-step.ts';
import { type CandidateWindow, candidateDraft, finalDraft } from './render-step.ts';
import { renamedIdsWarning } from './transcript-warnings.ts';
import { appendNotice, appendReceipt } from './window-inserts.ts';

/** The window one request will send, before it is handed out. */
interface PreparedWindow {
  readonly request: number;
  readonly budget: number;
  readonly draft: WindowDraft;
  readonly plan: CommitPlan | undefined;
  /** Estimated tokens before this request's commit. */
  readonly estimate: number;
  readonly foldsLanded: number;
  readonly dirty: boolean;
  readonly warnings: FoldWarning[];
  /** A reopened session was handed another conversation: the stored window is gone. */
  readonly replacesStoredWindow: boolean;
}

/**
 * One request, step by step: ingest the branch and decide on what arrived (`ingestRequest`),
 * render the candidate, cut the fence, plan and land a commit (`commitRequest`), render the
 * final draft with its receipt and notice (`renderRequest`), then hand the window out (`handOut`).
 * @throws FoldError `BUDGET.EXCEEDED` when no lossless fold can bring the request under the budget
 * (docs/behaviour.md I6).
 */
export async function projectRequest(
  session: SessionState,
  read: BranchRead,
  context: RequestContext,
): Promise<ProjectionResult> {
  const prepared = await prepareWindow(session, read, context);
  const estimatedTokens = session.estimateTokens(prepared.draft.chars);
  if (estimatedTokens > prepared.budget) {
    if (prepared.dirty) await session.saveOrWarn(prepared.warnings);
    const { plan, foldsLanded } = prepared;
    const refusedStore =
      plan !== undefined && plan.folds.length > 0 && foldsLanded === 0 ? session.ports.foldStore.name : undefined;
    for (const warning of prepared.warnings) session.services.outbound.warning(warning);
    throw budgetExceeded({
      estimatedTokens,
      budgetTokens: prepared.budget,
      request: prepared.request,
      refusedStore,
      storeRemedy: refusedStore === undefined ? undefined : storeRemedy(session.services.storeOutage.lastFailure),
      // Only a refusal counts them: results that answer no call are a cause worth naming there.
      strayResults: session.model.index.strayResults(),
      material: windowMaterial({
        messages: prepared.draft.log.messages.slice(0, prepared.draft.length),
        index: session.model.index,
        pins: session.model.memory.pins,
        overheadChars: session.model.lastContext.overheadChars ?? 0,
      }),
    });
  }
  return handOut(session, prepared, estimatedTokens);
}

/**
 * The steps before the hand-out, each in its own function that returns what it decided: the
 * branch read in, the commit planned and landed, the window drafted.
 */
async function prepareWindow(
  session: SessionState,
  read: BranchRead,
  context: RequestContext,
): Promise<PreparedWindow> {
  // The budget is checked first: a request that cannot be budgeted changes nothing.
  const budget = session.budgetTokens(context);
  const warnings: FoldWarning[] = [];
  const ingested = ingestRequest(session, read, context, budget, warnings);
  const request = session.model.memory.nextRequest;
  const candidate = candidateDraft(session, ingested.appendedFrom);
  const estimate = session.estimateTokens(candidate.draft.chars);
  const { plan, foldsLanded } = await commitRequest(session, { estimate, budget, context }, warnings);
  const landed = foldsLanded > 0 ? plan : undefined;
  const rendered = renderRequest(session, candidate, landed, { estimate, budget });
  const dirty = rendered.dirty || ingested.dirty || foldsLanded > 0;
  const { replacesStoredWindow } = ingested;
  return { request, budget, draft: rendered.draft, plan, estimate, foldsLanded, dirty, warnings, replacesStoredWindow };
}

/** What reading the branch in decided: where it was appended, and whether a decision changed. */
interface IngestedBranch {
  readonly appendedFrom: number;
  readonly dirty: boolean;
  readonly replacesStoredWindow: boolean;
}

/** Ingest: the branch into the index, spills, the reopened-conversation check, and the decisions made on arrival. */
function ingestRequest(
  session: SessionState,
  read: BranchRead,
  context: RequestContext,
  budget: number,
  warnings: FoldWarning[],
): IngestedBranch {
  const { ports, model } = session;
  const { appendedFrom, renamedEntries, takenBack } = ingestBranch(session, read);
  if (renamedEntries > 0 && !model.renamedIdsReported) {
    model.renamesReported();
    warnings.push(renamedIdsWarning(ports.sessionId, renamedEntries));
  }
  // Spill at ingestion: the window form is already decided; this starts writing the exact artifacts.
  const spill = session.services.spills.ingest(model.index, appendedFrom, ports.evidenceStore, ports.sessionId);
  if (spill.warning !== undefined)
    warnings.push({
      code: 'STORE.SPILL_REFUSED',
      message: spill.warning,
      details: { store: ports.evidenceStore?.name ?? null },
    });
  // Written before the later steps: the estimate reads the context's overhead, a commit its request time.
  model.requestBegan(context, budget);
  const replacesStoredWindow = checkReopenedConversation(session, warnings);
  const contextChanged = rememberRequestContext(model.memory, context);
  const anchorMoved = updateTranscriptAnchor(model.memory, model.index);
  // A spill is no decision to save: its form follows from the entry and the session's
  // policy, which the state already holds, so a spilled result alone writes no state.
  const decided = decideOnArrival(session);
  return { appendedFrom, dirty: takenBack || decided || anchorMoved || contextChanged, replacesStoredWindow };
}

/** The request's numbers a commit is decided on. */
interface CommitInputs {
  readonly estimate: number;
  readonly budget: number;
  readonly context: RequestContext;
}

/**
 * Fence, plan and land: over the budget the fence cuts first (docs/behaviour.md I6), planning
 * returns the plan without writing, the plan is applied, and the scheduler learns the outcome
 * only when the store did not refuse it.
 */
async function commitRequest(
  session: SessionState,
  inputs: CommitInputs,
  warnings: FoldWarning[],
): Promise<{ readonly plan: CommitPlan | undefined; readonly foldsLanded: number }> {
  const { estimate, budget, context } = inputs;
  const { ports, model, services } = session;
  if (estimate > budget) cutForFence(session);
  const source = {
    settings: ports.settings,
    costModel: ports.costModel,
    index: model.index,
    lattice: model.lattice,
    memory: model.memory,
    estimator: services.estimator,
    forcedCommit: model.forcedCommit,
    scheduler: services.scheduler,
  };
  const { plan, schedulerUpdate } = planRequestCommit(source, {
    estimate,
    budget,
    moment: context,
    overheadChars: context.overheadChars ?? 0,
  });
  const landing = plan === undefined ? undefined : await landCommit(session, plan, warnings);
  if (schedulerUpdate !== undefined && landing?.refused !== true) services.scheduler.settle(schedulerUpdate);
  // The marks still pending will commit later: their blobs are written now, off the request path.
  prewritePendingMarks(session);
  model.forcedCommitDecided();
  return { plan, foldsLanded: landing?.foldsLanded ?? 0 };
}

/** Render: the final draft, then the receipt of a landed commit and a notice when due. */
function renderRequest(
  session: SessionState,
  candidate: CandidateWindow,
  landed: CommitPlan | undefined,
  numbers: { readonly estimate: number; readonly budget: number },
): { readonly draft: WindowDraft; readonly dirty: boolean } {
  const draft = finalDraft(session, candidate, landed);
  let dirty = false;
  if (landed !== undefined) dirty = appendReceipt(session, draft, landed, numbers.estimate, numbers.budget);
  dirty = appendNotice(session, draft) || dirty;
  return { draft, dirty };
}

/**
 * A reopened session's first branch is compared with what the store remembers; a different
 * conversation is a recorded rewrite.
 */
function checkReopenedConversation(session: Pick<SessionState, 'ports' | 'model'>, warnings: FoldWarning[]): boolean {
  const { model } = session;
  const { sessionId } = session.ports;
  if (!model.restoredUnchecked || model.index.length === 0) return false;
  model.restoredChecked();
  if (model.lostSinceLastRun.length > 0) warnings.push(lostFoldsWarning(sessionId, model.lostSinceLastRun));
  const mismatch = checkRestoredConversation(model.index, model.lattice, model.memory.transcriptAnchor);
  if (mismatch === undefined) return false;
  model.queueRewrite('transcript-changed');
  warnings.push(conversationMismatchWarning(sessionId, mismatch));
  return true;
}

/** Freeze the window, write its ledger row and telemetry, save what changed, and give it to the sink. */
async function handOut(
  session: SessionState,
  prepared: PreparedWindow,
  estimatedTokens: number,
): Promise<ProjectionResult> {
  const { request, budget, draft, foldsLanded, warnings } = prepared;
  const { model, services } = session;
  const { row, rewrite } = ledgerRow({
    request,
    previous: model.frozenView,
    draft,
    causes: [...model.pendingCauses],
    estimatedTokens,
    preCommitTokens: foldsLanded > 0 ? prepared.estimate : estimatedTokens,
    budgetTokens: budget,
    foldsLanded,
    replacesStoredWindow: prepared.replacesStoredWindow,
  });
  const view = freeze(draft);
  const projection = lazyProjection(view, row);
  recordLedger(model, projection.ledger, rewrite);
  services.scheduler.requestSent(model.lastContext, prepared.estimate, estimatedTokens);
  if (foldsLanded > 0) {
    services.telemetry.landed({
      row: projection.ledger,
      epoch: model.memory.epoch,
      previous: model.frozenView,
      measuredTokensBefore: services.providerUsage.lastPromptTokens,
      tokensForChars: (chars) => services.estimator.tokensForChars(chars),
    });
  }
  model.handedOut(view);
  if (rewrite) model.memory.noteRewriteSent();
  // Counters alone are not worth a write per request; any decision is.
  if (prepared.dirty || rewrite || prepared.plan !== undefined) await session.saveOrWarn(warnings);
  services.outbound.projection(projection);
  for (const warning of warnings) services.outbound.warning(warning);
  let hostMessages: readonly ProjectedMessage[] | undefined;
  return {
    ledger: projection.ledger,
    warnings: warnings.map((warning) => warning.message),
    warningRecords: warnings,
    // Entries the host renamed go back under the host's current ids (docs/behaviour.md B6.6).
    get messages() {
      return (hostMessages ??= model.index.renames.hostMessages(projection.messages));
    },
  };
}

function recordLedger(model: Pick<SessionModel, 'memory' | 'recordLedgerRow'>, row: LedgerRow, rewrite: boolean): void {
  // Rows share the log's arrays (views), so keeping them costs no copy per request.
  model.memory.countRequest({ rewrite, unattributed: row.unattributed, foldsLanded: row.foldsLanded });
  model.recordLedgerRow(row);
}
