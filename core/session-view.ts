import type { CommitTelemetry } from '../ports/engine-telemetry.ts';
import type {
  EngineCountersV1,
  EngineState,
  EphemeralPeekV1,
  HeldSpanV1,
  LostFoldV1,
  PendingMarkV1,
  StoredRequestContextV1,
  WindowInsertV1,
} from '../ports/fold-records.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import type { LedgerRow, RewriteCause } from '../ports/ledger-row.ts';
import type { ProjectedMessage } from '../ports/projected-message.ts';
import type { RequestContext } from '../ports/request-context.ts';
import type { TranscriptEntry } from '../ports/transcript-entry.ts';
import type { CacheLossSummary } from './commit/policy/cache-survival.ts';
import type { CommitReason, ForcedCommit } from './commit/policy/decision.ts';
import type { FoldLattice, PlacedFold } from './fold-lattice.ts';
import type { FoldSettings } from './settings.ts';
import type { SpillBook } from './spill/spill-book.ts';
import type { Unit } from './transcript-index.ts';

/** The transcript as the engine indexed it (entries, their hashes and units), read only. */
export interface TranscriptIndexView {
  readonly entries: readonly TranscriptEntry[];
  readonly shas: readonly string[];
  /** Chars each entry occupies in the window (its spilled form when an oversized part was spilled). */
  readonly windowChars: readonly number[];
  /** Chars the model reads of the entries before each position (length + 1 sums, the first 0). */
  readonly readCharsBefore: readonly number[];
  /** Moves when entries already held are dropped (a rewrite of history). */
  readonly generation: number;
  readonly units: readonly Readonly<Unit>[];
  /** Unit index of every entry. */
  readonly unitOf: readonly number[];
  readonly length: number;
  /** Position of the newest assistant entry, or -1. */
  readonly lastAssistantPosition: number;
  positionOf(entryId: string): number | undefined;
  resultPositionOf(toolCallId: string): number | undefined;
  isClosed(unitIndex: number): boolean;
}

/** The fold forest, read only: records, where they sit on the branch, and which are expanded. */
export type FoldLatticeView = Pick<
  FoldLattice,
  | 'size'
  | 'record'
  | 'placement'
  | 'parentOf'
  | 'allRecords'
  | 'enclosing'
  | 'isHidden'
  | 'collapsedStartingAt'
  | 'checkNewSpan'
  | 'clone'
  | 'outermostCollapsed'
  | 'rootRecords'
  | 'revision'
> & {
  readonly expanded: ReadonlySet<string>;
};

/** The session's persisted decisions (marks, pins, holds, inserts, counters), read only. */
export interface EngineMemoryView {
  readonly sessionId: string;
  readonly revision: number;
  readonly epoch: number;
  readonly noticeShownSinceRewrite: boolean;
  readonly foldIds: readonly string[];
  readonly marks: readonly PendingMarkV1[];
  readonly pins: ReadonlySet<string>;
  readonly holds: readonly HeldSpanV1[];
  readonly inserts: readonly WindowInsertV1[];
  readonly ephemeralPeeks: readonly EphemeralPeekV1[];
  /** Folds the store can no longer give back (see core/restore-folds.ts). */
  readonly lostFolds: readonly LostFoldV1[];
  readonly counters: EngineCountersV1;
  /** The window and model of the last request, kept with the state (absent before a first request). */
  readonly requestContext: StoredRequestContextV1 | undefined;
  markById(foldId: string): PendingMarkV1 | undefined;
  /** The state record as the store would get it. */
  snapshot(
    expanded: Iterable<string>,
    calibration: EngineState['calibration'],
    learned?: Pick<EngineState, 'cacheReports' | 'inflow'>,
  ): EngineState;
}

/** The session's spilled items (docs/behaviour.md B6.2), read only: where each spill id's exact bytes are. */
export type SpillBookView = Pick<SpillBook, 'pointer' | 'entryOf' | 'planFor' | 'windowChars'>;

/** The commit scheduler, read only: why the newest automatic commit landed, and whether a drain runs. */
export interface SchedulerView {
  readonly lastReason: CommitReason | undefined;
  /** `immediate` only: a trigger fired and due marks are still landing one per request. */
  readonly draining: boolean;
  /** What the provider's reports taught about its cache (docs/behaviour.md B3.3). */
  readonly clock: { learnedLosses(): CacheLossSummary };
}

/** Chars-per-token calibration, read only. */
export interface EstimatorView {
  charsPerToken(): number;
  tokensForChars(chars: number): number;
  calibration(): EngineState['calibration'];
}

/** The latest commits' telemetry and the listeners that failed, read only. */
export interface TelemetryView {
  readonly recent: readonly CommitTelemetry[];
  readonly listenerFailures: number;
  readonly lastListenerFailure: string | undefined;
}

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
