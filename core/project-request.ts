import type { FoldWarning, LedgerRow, ProjectionResult, RequestContext } from '../ports/shared-types.ts';
import type { BranchRead } from '../ports/transcript-source.port.ts';
import { budgetExceeded } from './budget.ts';
import { prewritePendingMarks } from './commit-applier.ts';
import type { CommitPlan } from './commit-planner.ts';
import { planRequestCommit } from './commit-scheduler.ts';
import {
  checkRestoredConversation,
  conversationMismatchWarning,
  updateTranscriptAnchor,
} from './conversation-check.ts';
import { decideOnArrival, ingestBranch } from './ingest-step.ts';
import { landCommit } from './land-step.ts';
import { ledgerRow } from './projection-ledger.ts';
import { candidateDraft, finalDraft } from './render-step.ts';
import { lostFoldsWarning } from './restore-folds.ts';
import { persistOrWarn } from './session-persistence.ts';
import type { SessionState } from './session-state.ts';
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
 * One request, step by step: ingest the branch, decide on what arrived, render the
 * candidate, decide and land a commit, add receipts and notices, then hand the window out.
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
    throw budgetExceeded({ estimatedTokens, budgetTokens: prepared.budget, request: prepared.request, refusedStore });
  }
  return handOut(session, prepared, estimatedTokens);
}

async function prepareWindow(
  session: SessionState,
  read: BranchRead,
  context: RequestContext,
): Promise<PreparedWindow> {
  // The budget is checked first: a request that cannot be budgeted changes nothing.
  const budget = session.budgetTokens(context);
  const appendedFrom = ingestBranch(session, read);
  const warnings: FoldWarning[] = [];
  // Spill at ingestion: the window form is already decided; this starts writing the exact artifacts.
  const spill = session.spills.ingest(session.index, appendedFrom, session.evidenceStore, session.sessionId);
  if (spill.warning !== undefined)
    warnings.push({
      code: 'STORE.SPILL_REFUSED',
      message: spill.warning,
      details: { store: session.evidenceStore?.name ?? null },
    });
  session.lastContext = context;
  session.lastBudget = budget;
  const replacesStoredWindow = checkReopenedConversation(session, warnings);
  const request = session.memory.counters.requests + 1;
  let dirty = updateTranscriptAnchor(session.memory, session.index);
  // A spill is no decision to save: its form follows from the entry and the session's
  // policy, which the state already holds, so a spilled result alone writes no state.
  dirty = decideOnArrival(session) || dirty;
  const candidate = candidateDraft(session, appendedFrom);
  const estimate = session.estimateTokens(candidate.draft.chars);
  const plan = planRequestCommit(session, {
    estimate,
    budget,
    moment: context,
    overheadChars: context.overheadChars ?? 0,
  });
  const foldsLanded = plan === undefined ? 0 : await landCommit(session, plan, warnings);
  // The marks still pending will commit later: their blobs are written now, off the request path.
  prewritePendingMarks(session);
  dirty ||= foldsLanded > 0;
  session.forcedCommit = undefined;
  const draft = finalDraft(session, candidate, foldsLanded > 0 ? plan : undefined);
  if (foldsLanded > 0) dirty = appendReceipt(session, draft, plan!, estimate, budget) || dirty;
  dirty = appendNotice(session, draft) || dirty;
  return { request, budget, draft, plan, estimate, foldsLanded, dirty, warnings, replacesStoredWindow };
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
