import type { EngineState, LostFoldV1 } from '../../ports/fold-records.ts';
import type { LedgerRow, RequestContext, RewriteCause } from '../../ports/shared-types.ts';
import type { TranscriptEntry } from '../../ports/transcript-entry.ts';
import { FoldLattice, type PlacedFold } from '../folds/fold-lattice.ts';
import type { WindowView } from '../render/window-log.ts';
import { TranscriptIndex } from '../transcript/transcript-index.ts';
import { EngineMemory } from './engine-memory.ts';
import type { ForcedCommit } from './forced-commit.ts';

/** Ledger rows kept in memory (digests are dropped from all but the newest). */
const LEDGER_HISTORY = 10_000;

/**
 * What an action may change, as one value: the persisted decisions (with the expanded set)
 * and the rewrites queued for the next projection. Taken before an action, put back whole
 * when it is refused.
 */
export interface SessionDecisions {
  readonly state: EngineState;
  readonly pendingCauses: readonly RewriteCause[];
}

/**
 * What one session knows and has decided: the branch as indexed, the fold forest over it, the
 * persisted decisions, the window last handed out and what the next request must know of the
 * last one. It is the part of a session that requests change; the ports are fixed and the
 * services (`SessionServices`) keep only what they derive from this.
 *
 * Its fields are read through getters and change only through the methods below, each named
 * for the moment it records: a request's steps queue rewrites and show folds, `projectRequest`
 * records the request's outcome, the facade records what a host tells it between requests.
 * The index, the forest and the decisions (`memory`) are objects with owners of their own.
 */
export class SessionModel {
  readonly index: TranscriptIndex;
  readonly lattice: FoldLattice;
  #memory: EngineMemory;
  #frozenView: WindowView | undefined;
  #visibleFolds: readonly PlacedFold[] = [];
  /** One set for the session's life: emptied and filled, never replaced (views hold it). */
  readonly #pendingCauses = new Set<RewriteCause>();
  #forcedCommit: ForcedCommit | undefined;
  #lastBudget: number | undefined;
  #lastContext: RequestContext = {};
  #restoredUnchecked = false;
  #lostSinceLastRun: readonly LostFoldV1[] = [];
  #renamedIdsReported = false;
  /** One list for the session's life, like the causes. */
  readonly #ledger: LedgerRow[] = [];

  /** `windowChars` sizes an entry in the window (its spilled form when a part is spilled). */
  constructor(memory: EngineMemory, windowChars: (entry: TranscriptEntry) => number) {
    this.#memory = memory;
    this.index = new TranscriptIndex(windowChars);
    this.lattice = new FoldLattice(this.index);
  }

  /** The persisted decisions; replaced whole only when a refused action puts its decisions back. */
  get memory(): EngineMemory {
    return this.#memory;
  }

  /** The projection most recently handed to the host: the prefix the next one must extend. */
  get frozenView(): WindowView | undefined {
    return this.#frozenView;
  }

  /** Collapsed folds visible in the window, in order, from the last full render. */
  get visibleFolds(): readonly PlacedFold[] {
    return this.#visibleFolds;
  }

  /** Rewrites requested since the last projection, applied at the next one. */
  get pendingCauses(): ReadonlySet<RewriteCause> {
    return this.#pendingCauses;
  }

  /** A commit a person or the host asked for at the next projection. */
  get forcedCommit(): ForcedCommit | undefined {
    return this.#forcedCommit;
  }

  get lastBudget(): number | undefined {
    return this.#lastBudget;
  }

  get lastContext(): RequestContext {
    return this.#lastContext;
  }

  /** Restored from the store and not yet compared with a branch from the host (see conversation-check.ts). */
  get restoredUnchecked(): boolean {
    return this.#restoredUnchecked;
  }

  /** Folds found lost when the session was reopened: named once, in the first projection's warnings. */
  get lostSinceLastRun(): readonly LostFoldV1[] {
    return this.#lostSinceLastRun;
  }

  /** Whether this session has told the host it renames entries (told once). */
  get renamedIdsReported(): boolean {
    return this.#renamedIdsReported;
  }

  /** Ledger rows of the latest requests, oldest first. */
  get ledger(): readonly LedgerRow[] {
    return this.#ledger;
  }

  /** The next projection rewrites the window, for `cause`. */
  queueRewrite(cause: RewriteCause): void {
    this.#pendingCauses.add(cause);
  }

  /** The session was reopened from its store: what it lost, and the context its last request had. */
  reopened(lost: readonly LostFoldV1[], lastContext: RequestContext | undefined): void {
    this.#lostSinceLastRun = lost;
    this.#restoredUnchecked = true;
    if (lastContext !== undefined) this.#lastContext = lastContext;
  }

  /** The host said what the requests to come look like, before any of them. */
  expectContext(context: RequestContext): void {
    this.#lastContext = context;
  }

  /** A request began with this context and budget. */
  requestBegan(context: RequestContext, budget: number): void {
    this.#lastContext = context;
    this.#lastBudget = budget;
  }

  /** The reopened session's first branch was compared with what its store remembers. */
  restoredChecked(): void {
    this.#restoredUnchecked = false;
  }

  /** The host was told that it renames entries. */
  renamesReported(): void {
    this.#renamedIdsReported = true;
  }

  /** A person or the host asked for a commit at the next projection. */
  forceCommit(forced: ForcedCommit): void {
    this.#forcedCommit = forced;
  }

  /** The request's commit step has run: an asked-for commit was decided on. */
  forcedCommitDecided(): void {
    this.#forcedCommit = undefined;
  }

  /** A full render showed these collapsed folds. */
  showedFolds(visibleFolds: readonly PlacedFold[]): void {
    this.#visibleFolds = visibleFolds;
  }

  /** A request's ledger row: kept among the latest, the oldest let go past the history's length. */
  recordLedgerRow(row: LedgerRow): void {
    this.#ledger.push(row);
    if (this.#ledger.length > LEDGER_HISTORY) this.#ledger.shift();
  }

  /** The window was handed out: it is the prefix the next must extend, and the queued rewrites are done. */
  handedOut(view: WindowView): void {
    this.#frozenView = view;
    this.#pendingCauses.clear();
  }

  /** Take the decisions an action may change, as a value of their own. */
  takeDecisions(): SessionDecisions {
    const state = this.#memory.snapshot(this.lattice.expanded, []);
    return { state, pendingCauses: [...this.#pendingCauses] };
  }

  /** Put back decisions taken with `takeDecisions` (a refused action changes nothing). */
  putDecisions(decisions: SessionDecisions): void {
    this.#memory = EngineMemory.restore(decisions.state);
    this.lattice.setExpanded(decisions.state.expanded);
    this.#pendingCauses.clear();
    for (const cause of decisions.pendingCauses) this.#pendingCauses.add(cause);
  }
}
