import type { FoldWarning, LedgerRow, ProjectionResult, RequestContext } from '../ports/shared-types.ts';
import type { BranchRead } from '../ports/transcript-source.port.ts';
import { budgetExceeded } from './budget.ts';
import { landCommit } from './commit/apply/land.ts';
import { prewritePendingMarks } from './commit/apply/store-writes.ts';
import { cutForFence } from './commit/fence.ts';
import type { CommitPlan } from './commit/plan/planner.ts';
import { planRequestCommit } from './commit/plan/request-plan.ts';
import {
  checkRestoredConversation,
  conversationMismatchWarning,
  updateTranscriptAnchor,
} from './conversation-check.ts';
import { decideOnArrival, ingestBranch } from './ingest-step.ts';
import { ledgerRow } from './projection-ledger.ts';
import { type CandidateWindow, candidateDraft, finalDraft } from './render-step.ts';
import { lostFoldsWarning } from './restore-folds.ts';
import { persistOrWarn } from './session-persistence.ts';
import type { SessionState } from './session-state.ts';
import { rememberRequestContext } from './stored-request-context.ts';
import { appendNotice, appendReceipt } from './window-inserts.ts';
import { freeze, lazyProjection, type WindowDraft } from './window-log.ts';

/** Ledger rows kept in memory (digests are dropped from all but the newest). */
const LEDGER_HISTORY = 10_000;

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
 * @throws FoldError `BUDGET.EXCEEDED` when no lossless fold can bring the request under the budget (docs/behaviour.md I6).
 */
export async function projectRequest(
  session: SessionState,
  read: BranchRead,
  context: RequestContext,
): Promise<ProjectionResult> {
  const prepared = await prepareWindow(session, read, context);
  const estimatedTokens = session.estimateTokens(prepared.draft.chars);
  if (estimatedTokens > prepared.budget) {
    if (prepared.dirty) await persistOrWarn(session, prepared.warnings);
    const { plan, foldsLanded } = prepared;
    const refusedStore =
      plan !== undefined && plan.folds.length > 0 && foldsLanded === 0 ? session.foldStore.name : undefined;
    for (const warning of prepared.warnings) session.outbound.warning(warning);
    throw budgetExceeded({
      estimatedTokens,
      budgetTokens: prepared.budget,
      request: prepared.request,
      refusedStore,
      // Only a refusal counts them: results that answer no call are a cause worth naming there.
      strayResults: session.index.strayResults(),
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
  const request = session.memory.counters.requests + 1;
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
  const appendedFrom = ingestBranch(session, read);
  // Spill at ingestion: the window form is already decided; this starts writing the exact artifacts.
  const spill = session.spills.ingest(session.index, appendedFrom, session.evidenceStore, session.sessionId);
  if (spill.warning !== undefined)
    warnings.push({
      code: 'STORE.SPILL_REFUSED',
      message: spill.warning,
      details: { store: session.evidenceStore?.name ?? null },
    });
  // Written before the later steps: the estimate reads the context's overhead, a commit its request time.
  session.lastContext = context;
  session.lastBudget = budget;
  const replacesStoredWindow = checkReopenedConversation(session, warnings);
  const contextChanged = rememberRequestContext(session.memory, context);
  const anchorMoved = updateTranscriptAnchor(session.memory, session.index);
  // A spill is no decision to save: its form follows from the entry and the session's
  // policy, which the state already holds, so a spilled result alone writes no state.
  const decided = decideOnArrival(session);
  return { appendedFrom, dirty: decided || anchorMoved || contextChanged, replacesStoredWindow };
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
  if (estimate > budget) cutForFence(session);
  const { plan, schedulerUpdate } = planRequestCommit(session, {
    estimate,
    budget,
    moment: context,
    overheadChars: context.overheadChars ?? 0,
  });
  const landing = plan === undefined ? undefined : await landCommit(session, plan, warnings);
  if (schedulerUpdate !== undefined && landing?.refused !== true) session.scheduler.settle(schedulerUpdate);
  // The marks still pending will commit later: their blobs are written now, off the request path.
  prewritePendingMarks(session);
  session.forcedCommit = undefined;
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

/** A reopened session's first branch is compared with what the store remembers; a different conversation is a recorded rewrite. */
function checkReopenedConversation(session: SessionState, warnings: FoldWarning[]): boolean {
  if (!session.restoredUnchecked || session.index.length === 0) return false;
  session.restoredUnchecked = false;
  if (session.lostSinceLastRun.length > 0) warnings.push(lostFoldsWarning(session.sessionId, session.lostSinceLastRun));
  const mismatch = checkRestoredConversation(session.index, session.lattice, session.memory.transcriptAnchor);
  if (mismatch === undefined) return false;
  session.pendingCauses.add('transcript-changed');
  warnings.push(conversationMismatchWarning(session.sessionId, mismatch));
  return true;
}

/** Freeze the window, write its ledger row and telemetry, save what changed, and give it to the sink. */
async function handOut(
  session: SessionState,
  prepared: PreparedWindow,
  estimatedTokens: number,
): Promise<ProjectionResult> {
  const { request, budget, draft, foldsLanded, warnings } = prepared;
  const { row, rewrite } = ledgerRow({
    request,
    previous: session.frozenView,
    draft,
    causes: [...session.pendingCauses],
    estimatedTokens,
    preCommitTokens: foldsLanded > 0 ? prepared.estimate : estimatedTokens,
    budgetTokens: budget,
    foldsLanded,
    replacesStoredWindow: prepared.replacesStoredWindow,
  });
  const view = freeze(draft);
  const projection = lazyProjection(view, row);
  recordLedger(session, projection.ledger, rewrite);
  session.scheduler.requestSent(session.lastContext, prepared.estimate, estimatedTokens);
  if (foldsLanded > 0) {
    session.telemetry.landed({
      row: projection.ledger,
      epoch: session.memory.epoch,
      previous: session.frozenView,
      measuredTokensBefore: session.providerUsage.lastPromptTokens,
      tokensForChars: (chars) => session.estimator.tokensForChars(chars),
    });
  }
  session.frozenView = view;
  session.pendingCauses.clear();
  if (rewrite) session.memory.noticeShownSinceRewrite = false;
  // Counters alone are not worth a write per request; any decision is.
  if (prepared.dirty || rewrite || prepared.plan !== undefined) await persistOrWarn(session, warnings);
  session.outbound.projection(projection);
  for (const warning of warnings) session.outbound.warning(warning);
  return {
    ledger: projection.ledger,
    warnings: warnings.map((warning) => warning.message),
    warningRecords: warnings,
    get messages() {
      return projection.messages;
    },
  };
}

function recordLedger(session: Pick<SessionState, 'memory' | 'ledger'>, row: LedgerRow, rewrite: boolean): void {
  // Rows share the log's arrays (views), so keeping them costs no copy per request.
  const counters = session.memory.counters;
  counters.requests += 1;
  if (rewrite) counters.rewrites += 1;
  else counters.pureAppends += 1;
  if (row.unattributed) counters.unattributedRewrites += 1;
  if (row.foldsLanded > 0) {
    counters.commits += 1;
    counters.foldsLanded += row.foldsLanded;
  }
  session.ledger.push(row);
  if (session.ledger.length > LEDGER_HISTORY) session.ledger.shift();
}
