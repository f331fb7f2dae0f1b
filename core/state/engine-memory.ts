/** Room core/state/: what a session has decided and keeps, each piece written only by its owner. */

import type {
  EngineCountersV1,
  EngineState,
  EphemeralPeekV1,
  HeldSpanV1,
  LostFoldV1,
  PendingMarkV1,
  StoredRequestContextV1,
  TranscriptAnchorV1,
  WindowInsertV1,
} from '../../ports/fold-records.ts';
import { resolveSpillPolicy, type SpillPolicy } from '../settings/spill-policy.ts';

/** Most marks that may wait at once; the frontier stops cutting beyond it. */
export const MAX_PENDING_MARKS = 256;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A list that is only ever replaced whole or pushed to, never edited in place, so its identity
 * and its length together say whether it changed: the render's lookups (`core/state/render-lookups.ts`)
 * are rebuilt on exactly that check.
 */
type GrowOnlyList<T> = readonly T[] & Pick<T[], 'push'>;

/** What the counters learn of one request handed out. */
export interface CountedRequest {
  readonly rewrite: boolean;
  readonly unattributed: boolean;
  readonly foldsLanded: number;
}

/**
 * The engine's mutable decisions for one session, persisted whole after each change. Every
 * field changes only through the methods here, each named for what the change means; others
 * read them through the getters, as read-only values.
 */
export class EngineMemory {
  #revision = 0;
  #epoch = 0;
  #noticeShownSinceRewrite = false;
  /** The session's spill policy, once decided (kept in the state; see SpillBook). */
  #spillPolicy: SpillPolicy | undefined;
  /** Committed folds in landing order: grows in place as folds land. */
  #foldIds: string[] = [];
  /**
   * Pending marks: pushed to in place when one is added, replaced whole when one changes or
   * goes, so their identity and length tell `MarkSpans` whether it may read on from where it was.
   */
  #marks: PendingMarkV1[] = [];
  #pins = new Set<string>();
  /** Spans the agent asked to keep raw: replaced whole when one is added or released. */
  #holds: readonly HeldSpanV1[] = [];
  /** Receipts and notices: a commit pushes one, pruning replaces the list. */
  #inserts: GrowOnlyList<WindowInsertV1> = [];
  /** Peeks in the window: replaced whole when one is added or retired, never edited in place. */
  #ephemeralPeeks: readonly EphemeralPeekV1[] = [];
  /** Folds the state listed whose record or bytes the store can no longer give back (docs/reliability.md). */
  #lostFolds: readonly LostFoldV1[] = [];
  /** The first entry of the branch last projected (see EngineStateV1.transcriptAnchor). */
  #transcriptAnchor: TranscriptAnchorV1 | undefined;
  /** The last request's window and model (see EngineStateV1.requestContext). */
  #requestContext: StoredRequestContextV1 | undefined;
  #counters: Mutable<EngineCountersV1> = {
    requests: 0,
    pureAppends: 0,
    rewrites: 0,
    unattributedRewrites: 0,
    providerCacheMisses: 0,
    commits: 0,
    foldsLanded: 0,
  };

  constructor(readonly sessionId: string) {}

  /** The revision the store last took (see `savedAs`). */
  get revision(): number {
    return this.#revision;
  }

  /** How many commits have landed: each one's folds carry its epoch. */
  get epoch(): number {
    return this.#epoch;
  }

  /** Whether a notice was shown since the window was last rewritten (docs/behaviour.md B5.3). */
  get noticeShownSinceRewrite(): boolean {
    return this.#noticeShownSinceRewrite;
  }

  get spillPolicy(): SpillPolicy | undefined {
    return this.#spillPolicy;
  }

  get foldIds(): readonly string[] {
    return this.#foldIds;
  }

  /** The pending marks, oldest first; changed only through the methods below. */
  get marks(): readonly PendingMarkV1[] {
    return this.#marks;
  }

  get pins(): ReadonlySet<string> {
    return this.#pins;
  }

  get holds(): readonly HeldSpanV1[] {
    return this.#holds;
  }

  get inserts(): readonly WindowInsertV1[] {
    return this.#inserts;
  }

  get ephemeralPeeks(): readonly EphemeralPeekV1[] {
    return this.#ephemeralPeeks;
  }

  get lostFolds(): readonly LostFoldV1[] {
    return this.#lostFolds;
  }

  get transcriptAnchor(): TranscriptAnchorV1 | undefined {
    return this.#transcriptAnchor;
  }

  get requestContext(): StoredRequestContextV1 | undefined {
    return this.#requestContext;
  }

  /** The session's running counts; changed only by `countRequest` and `countProviderCacheMiss`. */
  get counters(): EngineCountersV1 {
    return this.#counters;
  }

  /** The ledger number the next projected request takes: one past the requests projected so far. */
  get nextRequest(): number {
    return this.#counters.requests + 1;
  }

  /** The store took the state as `revision`; a refused save never gets here. */
  savedAs(revision: number): void {
    this.#revision = revision;
  }

  /**
   * The session's spill policy: `policy` unless one is already decided (a restored session
   * keeps its own, docs/behaviour.md I1). Returns the one kept.
   */
  settleSpillPolicy(policy: SpillPolicy): SpillPolicy {
    this.#spillPolicy ??= policy;
    return this.#spillPolicy;
  }

  /** A reopened session lists the folds the store gave back; `lostFolds` are those it could not. */
  keepRestoredFolds(foldIds: string[], lostFolds: readonly LostFoldV1[]): void {
    this.#foldIds = foldIds;
    this.#lostFolds = lostFolds;
  }

  /** A commit starts to land: its folds take the next epoch. */
  openEpoch(): void {
    this.#epoch += 1;
  }

  /** A fold landed: the state lists it after those before it. */
  listFold(foldId: string): void {
    this.#foldIds.push(foldId);
  }

  markById(foldId: string): PendingMarkV1 | undefined {
    return this.#marks.find((mark) => mark.id === foldId);
  }

  /** A new mark waits after the others (the list grows in place). */
  addMark(mark: PendingMarkV1): void {
    this.#marks.push(mark);
  }

  /** `mark` becomes `replacement` in its place (a brief given, a chapter grown). */
  replaceMark(mark: PendingMarkV1, replacement: PendingMarkV1): void {
    this.#marks = this.#marks.map((candidate) => (candidate === mark ? replacement : candidate));
  }

  /** The marks named by `ids` go: landed, withdrawn or broken. */
  dropMarks(ids: ReadonlySet<string>): void {
    this.#marks = this.#marks.filter((mark) => !ids.has(mark.id));
  }

  /** Only the marks `keep` answers true for stay, in their order. */
  keepMarksWhere(keep: (mark: PendingMarkV1) => boolean): void {
    this.#marks = this.#marks.filter(keep);
  }

  /** The pending marks become `marks`, a list handed over whole (no one else may hold it). */
  replaceMarks(marks: PendingMarkV1[]): void {
    this.#marks = marks;
  }

  /** The entry `id` is pinned: its unit never folds (docs/behaviour.md B4.6). */
  pin(id: string): void {
    this.#pins.add(id);
  }

  /** The entry `id` is pinned no more. */
  unpin(id: string): void {
    this.#pins.delete(id);
  }

  /** A span is held raw: automatic cutting leaves it alone. */
  holdSpan(hold: HeldSpanV1): void {
    this.#holds = [...this.#holds, hold];
  }

  /** Only the holds `keep` answers true for stay, in their order. */
  keepHoldsWhere(keep: (hold: HeldSpanV1) => boolean): void {
    this.#holds = this.#holds.filter(keep);
  }

  /** `run` runs as if nothing were held (the fence, docs/behaviour.md I6); the holds stay recorded. */
  setHoldsAsideWhile(run: () => void): void {
    const holds = this.#holds;
    this.#holds = [];
    try {
      run();
    } finally {
      this.#holds = holds;
    }
  }

  /** A receipt or notice is appended at the tail (the list grows in place). */
  recordInsert(insert: WindowInsertV1): void {
    this.#inserts.push(insert);
  }

  /** Only the inserts `keep` answers true for stay, in their order (the list is replaced whole). */
  keepInsertsWhere(keep: (insert: WindowInsertV1) => boolean): void {
    this.#inserts = this.#inserts.filter(keep);
  }

  /** A notice was shown; no other until the window is rewritten. */
  noteNoticeShown(): void {
    this.#noticeShownSinceRewrite = true;
  }

  /** A rewritten window was handed out: a notice may be shown again. */
  noteRewriteSent(): void {
    this.#noticeShownSinceRewrite = false;
  }

  /** The fold `foldId` was peeked at ephemerally by the tool call `toolCallId`; an earlier peek of that call goes. */
  rememberPeek(toolCallId: string, foldId: string): void {
    this.#ephemeralPeeks = [
      ...this.#ephemeralPeeks.filter((peek) => peek.toolCallId !== toolCallId),
      { toolCallId, foldId, retired: false },
    ];
  }

  /** Peeks not yet retired that `answered` names retire (the list is replaced whole). */
  retirePeeksWhere(answered: (peek: EphemeralPeekV1) => boolean): void {
    this.#ephemeralPeeks = this.#ephemeralPeeks.map((peek) =>
      peek.retired || !answered(peek) ? peek : { ...peek, retired: true },
    );
  }

  /** The branch now starts at `anchor`'s entry. */
  anchorTranscript(anchor: TranscriptAnchorV1): void {
    this.#transcriptAnchor = anchor;
  }

  /** The window and model the last request had (undefined when it named neither). */
  keepRequestContext(context: StoredRequestContextV1 | undefined): void {
    this.#requestContext = context;
  }

  /** One request handed out: whether it rewrote the window, unattributed, and how many folds it landed. */
  countRequest(request: CountedRequest): void {
    const counters = this.#counters;
    counters.requests += 1;
    if (request.rewrite) counters.rewrites += 1;
    else counters.pureAppends += 1;
    if (request.unattributed) counters.unattributedRewrites += 1;
    if (request.foldsLanded > 0) {
      counters.commits += 1;
      counters.foldsLanded += request.foldsLanded;
    }
  }

  /** The provider read less of its cache on a pure append than it held (see ProviderUsage). */
  countProviderCacheMiss(): void {
    this.#counters.providerCacheMisses += 1;
  }

  /**
   * The state record: the decisions held here, the calibration, and what else the session
   * learned of its provider and pace (`learned`, absent where nothing was).
   */
  snapshot(
    expanded: Iterable<string>,
    calibration: EngineState['calibration'],
    learned: Pick<EngineState, 'cacheReports' | 'inflow'> = {},
  ): EngineState {
    const { cacheReports = [], inflow } = learned;
    return {
      schemaVersion: 1,
      sessionId: this.sessionId,
      revision: this.#revision,
      foldIds: [...this.#foldIds],
      expanded: [...expanded].sort(),
      marks: [...this.#marks],
      pins: [...this.#pins].sort(),
      holds: [...this.#holds],
      inserts: [...this.#inserts],
      ephemeralPeeks: [...this.#ephemeralPeeks],
      calibration: [...calibration],
      counters: { ...this.#counters },
      epoch: this.#epoch,
      noticeShownSinceRewrite: this.#noticeShownSinceRewrite,
      ...(this.#lostFolds.length === 0 ? {} : { lostFolds: [...this.#lostFolds] }),
      ...(this.#transcriptAnchor === undefined ? {} : { transcriptAnchor: this.#transcriptAnchor }),
      ...(this.#spillPolicy === undefined ? {} : { spill: { ...this.#spillPolicy } }),
      ...(this.#requestContext === undefined ? {} : { requestContext: this.#requestContext }),
      ...(cacheReports.length === 0 ? {} : { cacheReports: [...cacheReports] }),
      ...(inflow === undefined || (inflow.samples.length === 0 && inflow.lastSentTokens === undefined)
        ? {}
        : { inflow }),
    };
  }

  static restore(state: EngineState): EngineMemory {
    const memory = new EngineMemory(state.sessionId);
    memory.#revision = state.revision;
    memory.#epoch = state.epoch;
    memory.#noticeShownSinceRewrite = state.noticeShownSinceRewrite === true;
    memory.#foldIds = [...state.foldIds];
    memory.#marks = [...state.marks];
    memory.#pins = new Set(state.pins);
    memory.#holds = [...state.holds];
    memory.#inserts = [...state.inserts];
    memory.#ephemeralPeeks = [...state.ephemeralPeeks];
    memory.#counters = { ...state.counters };
    memory.#lostFolds = [...(state.lostFolds ?? [])];
    if (isAnchor(state.transcriptAnchor)) memory.#transcriptAnchor = state.transcriptAnchor;
    memory.#spillPolicy = state.spill === undefined ? undefined : resolveSpillPolicy(state.spill);
    memory.#requestContext = state.requestContext;
    return memory;
  }

  /**
   * The state of a session rebuilt from its fold records alone (its state record gone): the
   * folds found, the highest epoch among them, and the folds that could not be read.
   */
  static rebuilt(sessionId: string, found: RebuiltFolds): EngineMemory {
    const memory = new EngineMemory(sessionId);
    memory.#foldIds = [...found.foldIds];
    memory.#epoch = found.epoch;
    memory.#lostFolds = [...found.lostFolds];
    return memory;
  }
}

/** What a rebuild found of a session's folds (see `EngineMemory.rebuilt`). */
export interface RebuiltFolds {
  readonly foldIds: readonly string[];
  readonly epoch: number;
  readonly lostFolds: readonly LostFoldV1[];
}

function isAnchor(value: unknown): value is TranscriptAnchorV1 {
  const anchor = value as Partial<TranscriptAnchorV1> | null | undefined;
  return typeof anchor?.entryId === 'string' && typeof anchor.sha256 === 'string';
}

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
  /** Folds the store can no longer give back (see core/store/restore-folds.ts). */
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
