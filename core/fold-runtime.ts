import type { CostModel, RequestUsage } from '../ports/cost-model.port.ts';
import type { EvidenceStore } from '../ports/evidence-store.port.ts';
import type { CalibrationSampleV1, FoldRecord, WindowInsertV1 } from '../ports/fold-records.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import type { LedgerRow, ProjectedMessage, ProjectionSink, RewriteCause } from '../ports/projection-sink.port.ts';
import type { TranscriptEntry } from '../ports/transcript-source.port.ts';
import { ACTION_NAMES } from './actions/action-arguments.ts';
import { executeAction, type ActionAnswer, type ActionCaller } from './actions/execute-action.ts';
import { retireAnsweredPeeks } from './actions/peek-action.ts';
import { budgetExceeded, OccupancyEstimator } from './budget.ts';
import type { CommitPlan } from './commit-planner.ts';
import { checkRestoredConversation, conversationMismatchWarning, updateTranscriptAnchor, type ConversationMismatch } from './conversation-check.ts';
import type { ForcedCommit, ForcedCommitCause } from './commit-decision.ts';
import { dropInvalidMarks } from './commit-landing.ts';
import { CommitScheduler, planRequestCommit } from './commit-scheduler.ts';
import { applyCommitPlan } from './commit-applier.ts';
import { EngineMemory, migrateEngineState } from './engine-state.ts';
import { FoldError } from './fold-error.ts';
import { FoldLattice, type PlacedFold } from './fold-lattice.ts';
import { Frontier, type FrontierInputs } from './frontier.ts';
import { CommitTelemetryLog } from './commit-telemetry.ts';
import { ledgerRow, totalChars } from './projection-ledger.ts';
import { appendDraft, freeze, lazyProjection, pushMessage, rewriteDraft as rewriteDraftFrom, viewMessages, type WindowDraft, type WindowView } from './window-log.ts';
import { ProjectionRenderer, type RenderInputs } from './projection-renderer.ts';
import { requestBudget, type FoldSettings } from './settings.ts';
import { ProviderUsage } from './provider-usage.ts';
import { refusedSaveWarning, skippedCommitWarning, StoreOutage } from './store-outage.ts';
import { SpillBook } from './spill/spill-book.ts';
import { TranscriptIndex } from './transcript-index.ts';
import { appendNotice, appendReceipt, pruneHiddenInserts } from './window-inserts.ts';

export interface FoldRuntimeDependencies {
  readonly sessionId: string;
  readonly settings: FoldSettings;
  readonly foldStore: FoldStore;
  readonly costModel: CostModel;
  readonly projectionSink?: ProjectionSink;
  readonly evidenceStore?: EvidenceStore;
}

/** What the host knows about the request being prepared. */
export interface RequestContext {
  /** The model's context window in tokens (used when no providerInputBudget is set). */
  readonly contextWindow?: number;
  /** The model this request goes to: picks its budget when `providerInputBudget` is keyed by model. */
  readonly model?: { readonly id?: string; readonly provider?: string };
  /** Chars the host adds around the messages (system prompt, tool schemas), for estimates before the first provider count. */
  readonly overheadChars?: number;
  /**
   * When the request is prepared, in milliseconds since the epoch, by the host's clock (core
   * has none, I5). With the price list's cache lifetime it tells a cold cache (B3.3).
   */
  readonly requestTime?: number;
}

export interface ProjectionResult {
  readonly messages: readonly ProjectedMessage[];
  readonly ledger: LedgerRow;
  /** Soft problems the host should show once (e.g. a commit skipped because the store refused a write). */
  readonly warnings: readonly string[];
}

/** Ledger rows kept in memory (digests are dropped from all but the newest). */
const LEDGER_HISTORY = 10_000;

/**
 * One session's fold engine. Hosts call `project` before every model request and `act`
 * for the agent's tool; everything else (cutting, committing, rendering, accounting)
 * happens inside, and the window only ever changes at a recorded rewrite (I1).
 */
export class FoldRuntime {
  /** How oversized tool results and arguments enter the window (B6.2); sizes the index's units. */
  readonly spills: SpillBook;
  readonly index = new TranscriptIndex((entry) => this.spills.windowChars(entry));
  readonly lattice = new FoldLattice(this.index);
  readonly renderer = new ProjectionRenderer();
  readonly frontier = new Frontier();
  readonly estimator: OccupancyEstimator;
  memory: EngineMemory;
  /** The projection most recently handed to the host: the prefix the next one must extend. */
  frozenView: WindowView | undefined;
  visibleFolds: PlacedFold[] = [];
  readonly ledger: LedgerRow[] = [];
  /** Per-commit telemetry (estimated, then provider-measured); hosts subscribe to log it. */
  readonly telemetry: CommitTelemetryLog;
  /** When and how deep automatic commits land (B3.2, B3.3). */
  readonly scheduler = new CommitScheduler(this);
  /** Rewrites requested by actions, applied at the next projection. */
  readonly pendingCauses = new Set<RewriteCause>();
  /** A person's `/fold`: land every mark (or only these) at the next projection. */
  forcedCommit: ForcedCommit | undefined;
  lastBudget: number | undefined;
  private lastContext: RequestContext = {};
  /** The provider's counts, as they arrive after each request. */
  private readonly providerUsage = new ProviderUsage();
  private disposed = false;
  /** Restored from the store and not yet compared with a branch from the host (see conversation-check.ts). */
  private restoredUnchecked = false;
  /** Store writes during a projection: refused ones warn once per outage instead of failing the request. */
  private readonly storeOutage: StoreOutage;

  private constructor(readonly dependencies: FoldRuntimeDependencies, memory: EngineMemory, calibration: readonly CalibrationSampleV1[]) {
    this.memory = memory;
    // The first request fixes the session's spill policy; a restored session keeps its own (I1).
    memory.spillPolicy ??= dependencies.settings.spill;
    this.spills = new SpillBook(memory.spillPolicy, dependencies.settings.toolName);
    const sink = dependencies.projectionSink;
    this.telemetry = new CommitTelemetryLog(dependencies.sessionId, sink?.acceptCommitTelemetry === undefined ? undefined : (event) => sink.acceptCommitTelemetry!(event));
    this.estimator = new OccupancyEstimator(dependencies.costModel.defaultCharsPerToken, calibration);
    this.storeOutage = new StoreOutage(dependencies.foldStore.name);
  }

  /** Open a session: restore its state and standing folds from the store, or start fresh. */
  static async open(dependencies: FoldRuntimeDependencies): Promise<FoldRuntime> {
    const { foldStore, sessionId } = dependencies;
    const state = await loadStateOrExplain(foldStore, sessionId);
    if (state === undefined) return new FoldRuntime(dependencies, new EngineMemory(sessionId), []);
    const runtime = new FoldRuntime(dependencies, EngineMemory.restore(state), state.calibration);
    const records: FoldRecord[] = [];
    for (const foldId of state.foldIds) {
      const record = await foldStore.getFold(sessionId, foldId);
      if (record === undefined) {
        throw new FoldError('STATE.CORRUPT', `session ${sessionId} lists fold ${foldId} but the ${foldStore.name} store has no record of it`, { details: { sessionId, foldId } });
      }
      records.push(record);
    }
    runtime.lattice.load(records, state.expanded);
    runtime.restoredUnchecked = true;
    return runtime;
  }

  get settings(): FoldSettings {
    return this.dependencies.settings;
  }

  get sessionId(): string {
    return this.dependencies.sessionId;
  }

  renderInputs(lattice: FoldLattice = this.lattice): RenderInputs {
    const retiredPeeks = new Map<string, string>();
    for (const peek of this.memory.ephemeralPeeks) if (peek.retired) retiredPeeks.set(peek.toolCallId, peek.foldId);
    const insertsByAnchor = new Map<string, WindowInsertV1[]>();
    for (const insert of this.memory.inserts) {
      const list = insertsByAnchor.get(insert.afterEntryId) ?? [];
      list.push(insert);
      insertsByAnchor.set(insert.afterEntryId, list);
    }
    return { index: this.index, lattice, retiredPeeks, insertsByAnchor, toolName: this.settings.toolName, spills: this.spills };
  }

  budgetTokens(context: RequestContext = this.lastContext): number {
    return requestBudget(this.settings, context);
  }

  /**
   * What the host already knows about the requests to come (its model's context window),
   * so a restored session answers `status` with its budget before the first request. A
   * request's own context replaces it.
   */
  expectRequests(context: RequestContext): void {
    if (this.lastBudget === undefined) this.lastContext = context;
  }

  /** The budget of the last request, or the one the expected context gives; `undefined` when neither is known. */
  knownBudget(): number | undefined {
    if (this.lastBudget !== undefined) return this.lastBudget;
    try {
      return this.budgetTokens();
    } catch {
      return undefined;
    }
  }

  estimateTokens(chars: number): number {
    return this.estimator.estimate(chars, this.lastContext.overheadChars ?? 0);
  }

  /** The messages of the projection most recently handed to the host (a copy). */
  get frozen(): ProjectedMessage[] | undefined {
    return this.frozenView === undefined ? undefined : viewMessages(this.frozenView);
  }

  /**
   * Estimated tokens of the window as it stands: the last projection handed to the host, or,
   * when actions have already queued a rewrite (an expand), the window that rewrite will produce.
   */
  currentTokens(): number {
    if (this.frozenView === undefined) return 0;
    if (this.pendingCauses.size === 0) return this.estimateTokens(this.frozenView.chars);
    const { messages } = this.renderer.renderAll(this.renderInputs());
    return this.estimateTokens(totalChars(messages));
  }

  /**
   * Build the projection for the next model request from the host's active branch.
   * @throws FoldError `BUDGET.EXCEEDED` when no lossless fold can bring the request under the budget (I6).
   */
  async project(entries: readonly TranscriptEntry[], context: RequestContext = {}): Promise<ProjectionResult> {
    this.assertOpen();
    const budget = this.budgetTokens(context);
    const ingest = this.index.ingest(entries);
    const warnings: string[] = [];
    // Spill at ingestion: the window form is already decided; this writes the exact artifacts.
    const spill = await this.spills.ingest(this.index, ingest.appendedFrom, this.dependencies.evidenceStore, this.sessionId);
    if (spill.warning !== undefined) warnings.push(spill.warning);
    this.lastContext = context;
    this.lastBudget = budget;
    if (ingest.divergedAt !== undefined) {
      this.lattice.resolve();
      this.frontier.reset();
      this.pendingCauses.add('transcript-changed');
      this.scheduler.inflow.resetAnchor();
    } else {
      this.lattice.placeArrived();
    }
    let mismatch: ConversationMismatch | undefined;
    if (this.restoredUnchecked && this.index.length > 0) {
      this.restoredUnchecked = false;
      mismatch = checkRestoredConversation(this.index, this.lattice, this.memory.transcriptAnchor);
      if (mismatch !== undefined) {
        this.pendingCauses.add('transcript-changed');
        warnings.push(conversationMismatchWarning(this.sessionId, mismatch));
      }
    }
    const request = this.memory.counters.requests + 1;
    let dirty = updateTranscriptAnchor(this.memory, this.index);
    dirty = retireAnsweredPeeks(this) || spill.spilled > 0 || dirty;
    const cuts = this.frontier.pass(this.frontierInputs());
    dirty ||= cuts.length > 0;
    const candidate = this.candidateDraft(ingest.appendedFrom);
    const estimate = this.estimateTokens(candidate.chars);
    const plan = planRequestCommit(this, { estimate, budget, moment: context, overheadChars: context.overheadChars ?? 0 });
    const foldsLanded = plan === undefined ? 0 : await this.landCommit(plan, warnings);
    dirty ||= foldsLanded > 0;
    this.forcedCommit = undefined;
    const draft = this.pendingCauses.size > 0 ? this.rewriteDraft() : candidate;
    if (foldsLanded > 0) dirty = appendReceipt(this, draft, plan!, estimate, budget) || dirty;
    dirty = appendNotice(this, draft) || dirty;
    const estimatedTokens = this.estimateTokens(draft.chars);
    if (estimatedTokens > budget) {
      if (dirty) await this.persistOrWarn(warnings);
      const refusedStore = plan !== undefined && plan.folds.length > 0 && foldsLanded === 0 ? this.dependencies.foldStore.name : undefined;
      throw budgetExceeded({ estimatedTokens, budgetTokens: budget, request, refusedStore });
    }
    const { row, rewrite } = ledgerRow({
      request,
      previous: this.frozenView,
      draft,
      causes: [...this.pendingCauses],
      estimatedTokens,
      preCommitTokens: foldsLanded > 0 ? estimate : estimatedTokens,
      budgetTokens: budget,
      foldsLanded,
      replacesStoredWindow: mismatch !== undefined,
    });
    const view = freeze(draft);
    const projection = lazyProjection(view, row);
    this.recordLedger(projection.ledger, rewrite);
    this.scheduler.requestSent(context, estimate, estimatedTokens);
    if (foldsLanded > 0) {
      this.telemetry.landed({ row: projection.ledger, epoch: this.memory.epoch, previous: this.frozenView, measuredTokensBefore: this.providerUsage.lastPromptTokens, tokensForChars: (chars) => this.estimator.tokensForChars(chars) });
    }
    this.frozenView = view;
    this.pendingCauses.clear();
    if (rewrite) this.memory.noticeShownSinceRewrite = false;
    // Counters alone are not worth a write per request; any decision is.
    if (dirty || rewrite || plan !== undefined) await this.persistOrWarn(warnings);
    this.dependencies.projectionSink?.accept(projection);
    return {
      ledger: projection.ledger,
      warnings,
      get messages() {
        return projection.messages;
      },
    };
  }

  /**
   * Apply a planned commit. A store that refuses a write skips the commit with one warning:
   * the request still goes out, unfolded and intact. Returns the folds landed.
   */
  private async landCommit(plan: CommitPlan, warnings: string[]): Promise<number> {
    let landed = 0;
    if (plan.folds.length > 0) {
      const applied = await this.storeOutage.attempt(() => applyCommitPlan(this, plan), warnings, skippedCommitWarning, false);
      if (applied) {
        landed = plan.folds.length;
        this.pendingCauses.add(this.forcedCommit?.cause ?? 'commit');
      }
    }
    dropInvalidMarks(this, plan);
    return landed;
  }

  /** What the frontier reads for one pass. */
  frontierInputs(): FrontierInputs {
    return { index: this.index, lattice: this.lattice, memory: this.memory, settings: this.settings, visibleFolds: this.visibleFolds, request: this.memory.counters.requests + 1 };
  }

  private candidateDraft(appendedFrom: number): WindowDraft {
    if (this.frozenView === undefined || this.pendingCauses.size > 0) return this.rewriteDraft();
    const added: ProjectedMessage[] = [];
    this.renderer.renderAppended(this.renderInputs(), appendedFrom, added);
    const draft = appendDraft(this.frozenView);
    for (const message of added) pushMessage(draft, message);
    return draft;
  }

  private rewriteDraft(): WindowDraft {
    pruneHiddenInserts(this);
    const { messages, visibleFolds } = this.renderer.renderAll(this.renderInputs());
    this.visibleFolds = visibleFolds;
    return rewriteDraftFrom(messages);
  }

  private recordLedger(row: LedgerRow, rewrite: boolean): void {
    // Rows share the log's arrays (views), so keeping them costs no copy per request.
    const counters = this.memory.counters;
    counters.requests += 1;
    if (rewrite) counters.rewrites += 1;
    else counters.pureAppends += 1;
    if (row.unattributed) counters.unattributedRewrites += 1;
    if (row.foldsLanded > 0) {
      counters.commits += 1;
      counters.foldsLanded += row.foldsLanded;
    }
    this.ledger.push(row);
    if (this.ledger.length > LEDGER_HISTORY) this.ledger.shift();
  }

  /**
   * Anchor occupancy on the provider's count for the last projection (input + cache read +
   * cache write), and count provider-side cache misses on pure appends.
   */
  recordUsage(usage: RequestUsage): void {
    this.providerUsage.record(this, usage);
  }

  /**
   * The host refreshed the provider's cache without a model request of ours (Pi 1.x warms it
   * while idle): the cache is warm from `time` on, for `lifetimeMs` if the host said (B3.3).
   */
  noteCacheWarmed(time: number, lifetimeMs?: number): void {
    this.scheduler.clock.warmed(time, lifetimeMs);
  }

  /** Run one of the agent's actions (B4). Bad input is refused with a FoldError and changes nothing. */
  async act(request: unknown, caller: ActionCaller = {}): Promise<ActionAnswer> {
    this.assertOpen();
    const sink = this.dependencies.projectionSink;
    if (sink?.acceptAction === undefined) return executeAction(this, request, caller);
    // Only known names become a label: a model's made-up action must not grow a metric's cardinality.
    const named = (request as { action?: unknown } | null)?.action;
    const action = (ACTION_NAMES as readonly unknown[]).includes(named) ? (named as string) : 'invalid';
    try {
      const answer = await executeAction(this, request, caller);
      sink.acceptAction({ action, outcome: 'answered', answerBytes: Buffer.byteLength(answer.text) });
      return answer;
    } catch (error) {
      sink.acceptAction({ action, outcome: 'refused', ...(FoldError.isInstance(error) ? { code: error.code } : {}), answerBytes: 0 });
      throw error;
    }
  }

  /**
   * A person's `/fold` (or a host's overflow recovery): commit every mark at the next
   * projection, or exactly the given marks. The rewrite is recorded under `cause`.
   */
  requestCommit(markIds?: readonly string[], cause: ForcedCommitCause = 'user-fold'): void {
    this.forcedCommit = markIds === undefined ? { cause } : { markIds: new Set(markIds), cause };
  }

  /**
   * Save state during a projection. A refused save must not stop the request (its window is
   * already decided and every fold in it is stored): it is tried again at the next decision.
   */
  private async persistOrWarn(warnings: string[]): Promise<void> {
    await this.storeOutage.attempt(() => this.persist(), warnings, refusedSaveWarning, true);
  }

  async persist(): Promise<void> {
    // The revision moves only once the store has the state: a refused save changes nothing.
    const revision = this.memory.revision + 1;
    await this.dependencies.foldStore.saveState(this.sessionId, { ...this.memory.snapshot(this.lattice.expanded, this.estimator.calibration()), revision });
    this.memory.revision = revision;
  }

  async dispose(): Promise<void> {
    this.disposed = true;
  }

  private assertOpen(): void {
    if (this.disposed) throw new FoldError('INVARIANT.BROKEN', `the runtime of session ${this.sessionId} was disposed`, { details: { sessionId: this.sessionId } });
  }
}


/** Codes of a state that exists but cannot be read; `pi-fold repair` rebuilds it from the verified folds. */
const DAMAGED_STATE_CODES = new Set(['STORE.SCHEMA_VERSION', 'STORE.HASH_MISMATCH', 'STATE.CORRUPT']);

/** Load and migrate the stored state; a damaged one is refused with the way back in. */
async function loadStateOrExplain(foldStore: FoldStore, sessionId: string) {
  try {
    const stored = await foldStore.loadState(sessionId);
    return stored === undefined ? undefined : migrateEngineState(stored, sessionId);
  } catch (error) {
    if (!FoldError.isInstance(error) || !DAMAGED_STATE_CODES.has(error.code)) throw error;
    const hint = `run \`npx pi-fold repair <store> --session ${sessionId}\` to rebuild it from the fold records and blobs the store can verify (every verified fold is kept)`;
    throw new FoldError(error.code, `${error.message}; ${hint}`, { cause: error, details: { ...error.details, sessionId, repair: 'pi-fold repair' } });
  }
}
