import type { CostModel } from '../ports/cost-model.port.ts';
import type { EvidenceStore } from '../ports/evidence-store.port.ts';
import type { CalibrationSampleV1, EngineState, LostFoldV1, WindowInsertV1 } from '../ports/fold-records.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import type { ProjectionSink } from '../ports/projection-sink.port.ts';
import type { LedgerRow, ProjectedMessage, RequestContext, RewriteCause } from '../ports/shared-types.ts';
import { BlobPrewrites } from './commit/apply/blob-prewrites.ts';
import { CommitTelemetryLog } from './commit/apply/telemetry.ts';
import type { ForcedCommit } from './commit/policy/decision.ts';
import { CommitScheduler } from './commit/policy/scheduler.ts';
import { EngineMemory } from './engine-memory.ts';
import { FoldLattice, type PlacedFold } from './fold-lattice.ts';
import { Frontier, type FrontierInputs } from './frontier.ts';
import { OccupancyEstimator } from './occupancy-estimator.ts';
import { OutboundChannel } from './outbound-channel.ts';
import { totalChars } from './projection-ledger.ts';
import { ProjectionRenderer, type RenderInputs } from './projection-renderer.ts';
import { ProviderUsage } from './provider-usage.ts';
import type { SessionView } from './session-view.ts';
import { type FoldSettings, requestBudget } from './settings.ts';
import { SpillBook } from './spill/spill-book.ts';
import { StoreOutage } from './store-outage.ts';
import { TranscriptIndex } from './transcript-index.ts';
import { viewMessages, type WindowView } from './window-log.ts';

/** The ports one session runs on, and its settings. */
export interface FoldRuntimeDependencies {
  readonly sessionId: string;
  readonly settings: FoldSettings;
  readonly foldStore: FoldStore;
  readonly costModel: CostModel;
  readonly projectionSink?: ProjectionSink;
  readonly evidenceStore?: EvidenceStore;
}

/**
 * What an action may change, as one value: the persisted decisions (with the expanded set)
 * and the rewrites queued for the next projection. Taken before an action, put back whole
 * when it is refused.
 */
export interface SessionDecisions {
  readonly state: EngineState;
  readonly pendingCauses: readonly RewriteCause[];
}

/** The render's lookups, with the lists they were built from. */
interface RenderLookups {
  readonly peeks: readonly unknown[];
  readonly peekCount: number;
  readonly inserts: readonly unknown[];
  readonly insertCount: number;
  readonly retiredPeeks: ReadonlyMap<string, string>;
  readonly insertsByAnchor: ReadonlyMap<string, readonly WindowInsertV1[]>;
}

/**
 * One session's state: the transcript index, the fold forest, the persisted decisions, the
 * window last handed out and the accounting around it. Step functions read narrow slices of
 * it; only the facade (`FoldRuntime`) hands it to them. Read from outside as a `SessionView`.
 */
export class SessionState implements SessionView {
  /** How oversized tool results and arguments enter the window (docs/behaviour.md B6.2); sizes the index's units. */
  readonly spills: SpillBook;
  /** Blobs of pending marks written ahead of their commit (core/commit/apply/blob-prewrites.ts). */
  readonly prewrites = new BlobPrewrites();
  readonly index = new TranscriptIndex((entry) => this.spills.windowChars(entry));
  readonly lattice = new FoldLattice(this.index);
  readonly frontier = new Frontier();
  readonly renderer = new ProjectionRenderer();
  readonly estimator: OccupancyEstimator;
  readonly ledger: LedgerRow[] = [];
  /** The one outbound channel: the sink, then subscribed observers. */
  readonly outbound: OutboundChannel;
  /** Per-commit telemetry (estimated, then provider-measured). */
  readonly telemetry: CommitTelemetryLog;
  /** The provider's counts, as they arrive after each request. */
  readonly providerUsage = new ProviderUsage();
  /** Store writes during a projection: refused ones warn once per outage instead of failing the request. */
  readonly storeOutage: StoreOutage;
  memory: EngineMemory;
  /** The projection most recently handed to the host: the prefix the next one must extend. */
  frozenView: WindowView | undefined;
  visibleFolds: PlacedFold[] = [];
  /** When and how deep automatic commits land (docs/behaviour.md B3.2, B3.3). */
  readonly scheduler: CommitScheduler;
  /** Rewrites requested by actions, applied at the next projection. */
  readonly pendingCauses = new Set<RewriteCause>();
  forcedCommit: ForcedCommit | undefined;
  lastBudget: number | undefined;
  lastContext: RequestContext = {};
  /** Restored from the store and not yet compared with a branch from the host (see conversation-check.ts). */
  restoredUnchecked = false;
  /** Folds found lost when the session was reopened: named once, in the first projection's warnings. */
  lostSinceLastRun: readonly LostFoldV1[] = [];
  /** How many times the render's lookups (retired peeks, inserts by anchor) were built: read by tests. */
  lookupBuilds = 0;
  private lookups: RenderLookups | undefined;
  private budgetMemo:
    | {
        readonly modelId: string | undefined;
        readonly provider: string | undefined;
        readonly contextWindow: number | undefined;
        readonly budget: number;
      }
    | undefined;

  constructor(
    readonly ports: FoldRuntimeDependencies,
    memory: EngineMemory,
    calibration: readonly CalibrationSampleV1[],
  ) {
    this.memory = memory;
    // The first request fixes the session's spill policy; a restored session keeps its own (docs/behaviour.md I1).
    memory.spillPolicy ??= ports.settings.spill;
    this.spills = new SpillBook(memory.spillPolicy, ports.settings.toolName);
    this.outbound = new OutboundChannel(ports.projectionSink);
    this.telemetry = new CommitTelemetryLog(ports.sessionId, this.outbound);
    this.estimator = new OccupancyEstimator(ports.costModel.defaultCharsPerToken, calibration);
    this.storeOutage = new StoreOutage(ports.foldStore.name);
    this.scheduler = new CommitScheduler(this);
  }

  get sessionId(): string {
    return this.ports.sessionId;
  }

  get settings(): FoldSettings {
    return this.ports.settings;
  }

  get foldStore(): FoldStore {
    return this.ports.foldStore;
  }

  get costModel(): CostModel {
    return this.ports.costModel;
  }

  get evidenceStore(): EvidenceStore | undefined {
    return this.ports.evidenceStore;
  }

  get frozen(): ProjectedMessage[] | undefined {
    return this.frozenView === undefined ? undefined : viewMessages(this.frozenView);
  }

  /** What a render reads (over `lattice`, the session's own by default). */
  renderInputs(lattice: FoldLattice = this.lattice): RenderInputs {
    const { retiredPeeks, insertsByAnchor } = this.renderLookups();
    return {
      index: this.index,
      lattice,
      retiredPeeks,
      insertsByAnchor,
      toolName: this.settings.toolName,
      spills: this.spills,
    };
  }

  /**
   * The retired peeks and the inserts by anchor, built again only when their lists changed.
   * Inserts (one receipt or notice per commit) grow with the session, and every request
   * renders at least its appended entries, so rebuilding these maps each time made a
   * request cost the session's commits. Their types (`GrowOnlyList`, a readonly list) admit
   * only replacing or pushing, so a list and its length say whether it changed.
   */
  private renderLookups(): RenderLookups {
    const { ephemeralPeeks, inserts } = this.memory;
    const known = this.lookups;
    if (
      known !== undefined &&
      known.peeks === ephemeralPeeks &&
      known.peekCount === ephemeralPeeks.length &&
      known.inserts === inserts &&
      known.insertCount === inserts.length
    )
      return known;
    this.lookupBuilds += 1;
    const retiredPeeks = new Map<string, string>();
    for (const peek of ephemeralPeeks) if (peek.retired) retiredPeeks.set(peek.toolCallId, peek.foldId);
    const insertsByAnchor = new Map<string, WindowInsertV1[]>();
    for (const insert of inserts) {
      const list = insertsByAnchor.get(insert.afterEntryId) ?? [];
      list.push(insert);
      insertsByAnchor.set(insert.afterEntryId, list);
    }
    this.lookups = {
      peeks: ephemeralPeeks,
      peekCount: ephemeralPeeks.length,
      inserts,
      insertCount: inserts.length,
      retiredPeeks,
      insertsByAnchor,
    };
    return this.lookups;
  }

  /** What the frontier reads for one pass. */
  frontierInputs(): FrontierInputs {
    return {
      index: this.index,
      lattice: this.lattice,
      memory: this.memory,
      settings: this.settings,
      visibleFolds: this.visibleFolds,
      request: this.memory.counters.requests + 1,
    };
  }

  budgetTokens(context: RequestContext = this.lastContext): number {
    // The budget follows from the settings and three fields of the context, which stay the
    // same request after request: it is worked out again only when one of them changes.
    const memo = this.budgetMemo;
    const { model, contextWindow } = context;
    if (
      memo !== undefined &&
      memo.modelId === model?.id &&
      memo.provider === model?.provider &&
      memo.contextWindow === contextWindow
    )
      return memo.budget;
    const budget = requestBudget(this.settings, context);
    this.budgetMemo = { modelId: model?.id, provider: model?.provider, contextWindow, budget };
    return budget;
  }

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

  /**
   * Estimated tokens of the window as it stands: the last projection handed to the host, or,
   * when actions have already queued a rewrite (an expand), the window that rewrite will produce.
   */
  currentTokens(): number {
    if (this.frozenView === undefined) return 0;
    if (this.pendingCauses.size === 0) return this.estimateTokens(this.frozenView.chars);
    return this.estimateTokens(totalChars(this.pendingWindow()));
  }

  pendingWindow(): ProjectedMessage[] {
    return this.renderer.renderAll(this.renderInputs()).messages;
  }

  /** The state record to save (the revision is the caller's). */
  snapshot(): EngineState {
    return this.memory.snapshot(this.lattice.expanded, this.estimator.calibration());
  }

  /** Take the decisions an action may change, as a value of their own. */
  takeDecisions(): SessionDecisions {
    return { state: this.memory.snapshot(this.lattice.expanded, []), pendingCauses: [...this.pendingCauses] };
  }

  /** Put back decisions taken with `takeDecisions` (a refused action changes nothing). */
  putDecisions(decisions: SessionDecisions): void {
    this.memory = EngineMemory.restore(decisions.state);
    this.lattice.setExpanded(decisions.state.expanded);
    this.pendingCauses.clear();
    for (const cause of decisions.pendingCauses) this.pendingCauses.add(cause);
  }
}
