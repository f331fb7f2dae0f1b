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
import { FoldError } from '../fold-error.ts';
import { resolveSpillPolicy, type SpillPolicy } from '../settings/spill-policy.ts';
import { engineStateElementProblem } from '../store/record-shapes.ts';
import { checkStoredRequestContext } from './stored-request-context.ts';

export const ENGINE_STATE_SCHEMA_VERSION = 1;

/** Most marks that may wait at once; the frontier stops cutting beyond it. */
export const MAX_PENDING_MARKS = 256;

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/**
 * A list that is only ever replaced whole or pushed to, never edited in place, so its identity
 * and its length together say whether it changed: the render's lookups (`core/state/render-lookups.ts`) are
 * rebuilt on exactly that check.
 */
export type GrowOnlyList<T> = readonly T[] & Pick<T[], 'push'>;

/** What the counters learn of one request handed out. */
export interface CountedRequest {
  readonly rewrite: boolean;
  readonly unattributed: boolean;
  readonly foldsLanded: number;
}

/** The engine's mutable decisions for one session, persisted whole after each change. */
export class EngineMemory {
  revision = 0;
  epoch = 0;
  noticeShownSinceRewrite = false;
  /** The session's spill policy, once decided (kept in the state; see SpillBook). */
  spillPolicy: SpillPolicy | undefined;
  foldIds: string[] = [];
  /**
   * Pending marks: pushed to in place when one is added, replaced whole when one changes or
   * goes, so their identity and length tell `MarkSpans` whether it may read on from where it was.
   */
  #marks: PendingMarkV1[] = [];
  pins = new Set<string>();
  holds: HeldSpanV1[] = [];
  /** Receipts and notices: a commit pushes one, pruning replaces the list. */
  inserts: GrowOnlyList<WindowInsertV1> = [];
  /** Peeks in the window: replaced whole when one is added or retired, never edited in place. */
  ephemeralPeeks: readonly EphemeralPeekV1[] = [];
  /** Folds the state listed whose record or bytes the store can no longer give back (docs/reliability.md). */
  lostFolds: LostFoldV1[] = [];
  /** The first entry of the branch last projected (see EngineStateV1.transcriptAnchor). */
  transcriptAnchor: TranscriptAnchorV1 | undefined;
  /** The last request's window and model (see EngineStateV1.requestContext). */
  requestContext: StoredRequestContextV1 | undefined;
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

  /** The pending marks, oldest first; changed only through the methods below. */
  get marks(): readonly PendingMarkV1[] {
    return this.#marks;
  }

  /** The session's running counts; changed only by `countRequest` and `countProviderCacheMiss`. */
  get counters(): EngineCountersV1 {
    return this.#counters;
  }

  /** The ledger number the next projected request takes: one past the requests projected so far. */
  get nextRequest(): number {
    return this.#counters.requests + 1;
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
      revision: this.revision,
      foldIds: [...this.foldIds],
      expanded: [...expanded].sort(),
      marks: [...this.marks],
      pins: [...this.pins].sort(),
      holds: [...this.holds],
      inserts: [...this.inserts],
      ephemeralPeeks: [...this.ephemeralPeeks],
      calibration: [...calibration],
      counters: { ...this.counters },
      epoch: this.epoch,
      noticeShownSinceRewrite: this.noticeShownSinceRewrite,
      ...(this.lostFolds.length === 0 ? {} : { lostFolds: [...this.lostFolds] }),
      ...(this.transcriptAnchor === undefined ? {} : { transcriptAnchor: this.transcriptAnchor }),
      ...(this.spillPolicy === undefined ? {} : { spill: { ...this.spillPolicy } }),
      ...(this.requestContext === undefined ? {} : { requestContext: this.requestContext }),
      ...(cacheReports.length === 0 ? {} : { cacheReports: [...cacheReports] }),
      ...(inflow === undefined || (inflow.samples.length === 0 && inflow.lastSentTokens === undefined)
        ? {}
        : { inflow }),
    };
  }

  static restore(state: EngineState): EngineMemory {
    const memory = new EngineMemory(state.sessionId);
    memory.revision = state.revision;
    memory.epoch = state.epoch;
    memory.noticeShownSinceRewrite = state.noticeShownSinceRewrite === true;
    memory.foldIds = [...state.foldIds];
    memory.#marks = [...state.marks];
    memory.pins = new Set(state.pins);
    memory.holds = [...state.holds];
    memory.inserts = [...state.inserts];
    memory.ephemeralPeeks = [...state.ephemeralPeeks];
    memory.#counters = { ...state.counters };
    memory.lostFolds = [...(state.lostFolds ?? [])];
    if (isAnchor(state.transcriptAnchor)) memory.transcriptAnchor = state.transcriptAnchor;
    memory.spillPolicy = state.spill === undefined ? undefined : resolveSpillPolicy(state.spill);
    memory.requestContext = state.requestContext;
    return memory;
  }
}

/**
 * Bring a stored state record to the current schema, or refuse it by name. Only version 1
 * exists so far; a future version adds its step here with a fixture test.
 */
export function migrateEngineState(raw: unknown, sessionId: string): EngineState {
  if (typeof raw !== 'object' || raw === null) {
    throw new FoldError('STATE.CORRUPT', `engine state of session ${sessionId} is not an object`, {
      details: { sessionId },
    });
  }
  const record = raw as Partial<EngineState> & { schemaVersion?: unknown };
  if (record.schemaVersion !== ENGINE_STATE_SCHEMA_VERSION) {
    throw new FoldError(
      'STORE.SCHEMA_VERSION',
      `engine state of session ${sessionId} has schema version ${String(record.schemaVersion)}; this runtime reads version ${ENGINE_STATE_SCHEMA_VERSION}`,
      {
        details: { sessionId, schemaVersion: String(record.schemaVersion) },
      },
    );
  }
  const arrays = ['foldIds', 'expanded', 'marks', 'pins', 'holds', 'inserts', 'ephemeralPeeks', 'calibration'] as const;
  for (const key of arrays) {
    if (!Array.isArray(record[key])) {
      throw new FoldError('STATE.CORRUPT', `engine state of session ${sessionId}: ${key} must be an array`, {
        details: { sessionId, field: key },
      });
    }
  }
  if (
    typeof record.counters !== 'object' ||
    record.counters === null ||
    typeof record.revision !== 'number' ||
    typeof record.epoch !== 'number'
  ) {
    throw new FoldError(
      'STATE.CORRUPT',
      `engine state of session ${sessionId}: counters, revision and epoch are required`,
      { details: { sessionId } },
    );
  }
  const elementProblem = engineStateElementProblem(record as Record<string, unknown>);
  if (elementProblem !== undefined) {
    throw new FoldError('STATE.CORRUPT', `engine state of session ${sessionId}: ${elementProblem}`, {
      details: { sessionId },
    });
  }
  if (record.spill !== undefined) {
    try {
      resolveSpillPolicy(record.spill);
    } catch (error) {
      throw new FoldError(
        'STATE.CORRUPT',
        `engine state of session ${sessionId}: its spill policy is not valid (${error instanceof Error ? error.message : String(error)})`,
        { details: { sessionId, field: 'spill' } },
      );
    }
  }
  // Added to version 1 as an optional field: a state saved before it existed reads as it is.
  if (record.requestContext !== undefined) checkStoredRequestContext(record.requestContext, sessionId);
  if (record.sessionId !== sessionId) {
    throw new FoldError(
      'STATE.CORRUPT',
      `engine state belongs to session ${String(record.sessionId)}, not ${sessionId}`,
      { details: { sessionId } },
    );
  }
  return record as EngineState;
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
