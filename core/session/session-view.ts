import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { LedgerRow, RewriteCause } from '../../ports/ledger-row.ts';
import type { ProjectedMessage } from '../../ports/projected-message.ts';
import type { RequestContext } from '../../ports/request-context.ts';
import type { TelemetryView } from '../commit/apply/telemetry.ts';
import type { SchedulerView } from '../commit/policy/scheduler.ts';
import type { FoldLatticeView, PlacedFold } from '../folds/fold-lattice.ts';
import type { EstimatorView } from '../pricing/occupancy-estimator.ts';
import type { FoldSettings } from '../settings/settings.ts';
import type { SpillBookView } from '../spill/spill-book.ts';
import type { EngineMemoryView } from '../state/engine-memory.ts';
import type { ForcedCommit } from '../state/forced-commit.ts';
import type { TranscriptIndexView } from '../transcript/transcript-index.ts';
import type { SessionState } from './session-state.ts';

/**
 * The one read-only view of a session: what the Pi editor, the projection candidates,
 * `status` and tests read. Nothing reached through it may be written; the facade's
 * `project`, `act`, `recordUsage` and `requestCommit` are the only ways to change a session.
 */
export interface SessionView {
  readonly sessionId: string;
  readonly settings: FoldSettings;
  readonly foldStore: FoldStore;
  readonly index: TranscriptIndexView;
  readonly lattice: FoldLatticeView;
  readonly memory: EngineMemoryView;
  readonly estimator: EstimatorView;
  readonly telemetry: TelemetryView;
  readonly spills: SpillBookView;
  readonly scheduler: SchedulerView;
  /** Ledger rows of the latest requests, oldest first. */
  readonly ledger: readonly LedgerRow[];
  /** Collapsed folds visible in the window, in order (from the last full render). */
  readonly visibleFolds: readonly PlacedFold[];
  /** The messages of the projection most recently handed to the host (a copy). */
  readonly frozen: ProjectedMessage[] | undefined;
  /** Rewrites queued by actions for the next projection. */
  readonly pendingCauses: ReadonlySet<RewriteCause>;
  /** A commit a person or the host asked for at the next projection. */
  readonly forcedCommit: ForcedCommit | undefined;
  /** The budget of the last projection, in tokens. */
  readonly lastBudget: number | undefined;
  /** The context budgets are worked out from: the last request's, else the host's expected one, else the stored one. */
  readonly lastContext: RequestContext;
  /** The budget of the last request, or the one the host's expected context gives; undefined when neither is known. */
  knownBudget(): number | undefined;
  /** The serving budget for a request (the last request's context by default). */
  budgetTokens(context?: RequestContext): number;
  /** Estimated tokens of the window as it stands (with any queued rewrite applied). */
  currentTokens(): number;
  /** The window the next projection would show with no new entries (renders it; nothing is kept). */
  pendingWindow(): ProjectedMessage[];
}

/**
 * The read-only face of a session, over its three parts: what `FoldRuntime.view` hands out.
 * Every member reads the part as it stands now (a refused action puts back a memory of its
 * own), and none can be assigned through.
 */
export function sessionView(session: SessionState): SessionView {
  const { ports, model, services } = session;
  return {
    sessionId: ports.sessionId,
    settings: ports.settings,
    foldStore: ports.foldStore,
    index: model.index,
    lattice: model.lattice,
    get memory() {
      return model.memory;
    },
    estimator: services.estimator,
    telemetry: services.telemetry,
    spills: services.spills,
    scheduler: services.scheduler,
    ledger: model.ledger,
    get visibleFolds() {
      return model.visibleFolds;
    },
    get frozen(): ProjectedMessage[] | undefined {
      return session.frozen;
    },
    pendingCauses: model.pendingCauses,
    get forcedCommit() {
      return model.forcedCommit;
    },
    get lastBudget() {
      return model.lastBudget;
    },
    get lastContext() {
      return model.lastContext;
    },
    knownBudget: () => session.knownBudget(),
    budgetTokens: (context?: RequestContext) => session.budgetTokens(context),
    currentTokens: () => session.currentTokens(),
    pendingWindow: () => session.pendingWindow(),
  };
}
