/**
 * Records the engine persists through a FoldStore. Every record carries `schemaVersion`;
 * readers migrate older versions forward (see core/state-migrations.ts).
 */

/** What a fold covers. */
export type FoldKind = 'tool' | 'chapter' | 'consolidation';

/** Who asked for a fold. */
export type FoldOrigin = 'runtime' | 'agent' | 'user';

/** Whether the brief was written by the runtime or supplied by the agent or a person. */
export type BriefProvenance = 'deterministic' | 'supplied';

/** A raw entry inside a fold, addressed by the SHA-256 of its exact bytes. */
export interface FoldEntryPart {
  readonly kind: 'entry';
  readonly entryId: string;
  readonly sha256: string;
  /** Length of the entry's bytes in UTF-16 code units (the unit of `bytes.length`). */
  readonly chars: number;
}

/** A child fold nested directly inside a fold. */
export interface FoldChildPart {
  readonly kind: 'fold';
  readonly foldId: string;
}

export type FoldPart = FoldEntryPart | FoldChildPart;

/** A committed (standing) fold. Immutable once written. */
export interface FoldRecordV1 {
  /** Record schema; readers migrate older versions forward. */
  readonly schemaVersion: 1;
  /**
   * `fold_` + 24 hex chars, derived from kind, span and the span's bytes (records of earlier
   * releases: kind and span), or a derived alternative when that id was already taken by
   * another record of the session. A record's id is whatever it was stored as.
   */
  readonly id: string;
  /** Tool fold, chapter fold or consolidation. */
  readonly kind: FoldKind;
  /** Who cut the span: the runtime, the agent or a person. */
  readonly origin: FoldOrigin;
  /** First and last transcript entry ids covered (inclusive). */
  readonly firstEntryId: string;
  readonly lastEntryId: string;
  /** One level of structure: raw entries and direct child folds, in transcript order. */
  readonly parts: readonly FoldPart[];
  /** SHA-256 of every covered entry's bytes, each followed by "\n", in order (all depths). */
  readonly sourceSha256: string;
  /** Total chars of every covered entry's bytes. */
  readonly sourceChars: number;
  /** Number of covered entries (all depths). */
  readonly entryCount: number;
  /** The words shown in the placeholder (at most 2000 chars). */
  readonly brief: string;
  /** Whether `brief` was written by the runtime or supplied verbatim. */
  readonly provenance: BriefProvenance;
  /** For tool folds: the calls whose results were folded (their stubs keep the pairing). */
  readonly toolCalls?: readonly { readonly toolCallId: string; readonly toolName: string }[];
  /** Monotonic commit number that landed this fold. */
  readonly epoch: number;
}

export type FoldRecord = FoldRecordV1;

/** A pending fold: a decision held in state, outside the window. */
export interface PendingMarkV1 {
  /** The id the fold will keep when it commits. */
  readonly id: string;
  /** What the fold will be. */
  readonly kind: FoldKind;
  /** Who cut it. */
  readonly origin: FoldOrigin;
  /** First entry of the span (inclusive). */
  readonly firstEntryId: string;
  /** Last entry of the span (inclusive). */
  readonly lastEntryId: string;
  /** The agent's or person's own words, kept verbatim; absent means deterministic at commit. */
  readonly brief?: string;
  /** Request number at which the mark was cut (stalest first = lowest span start). */
  readonly cutAtRequest: number;
}

/** A span the agent or a person returned to raw: never cut automatically again. */
export interface HeldSpanV1 {
  /** First entry of the held span (inclusive). */
  readonly firstEntryId: string;
  /** Last entry of the held span (inclusive). */
  readonly lastEntryId: string;
}

/** A notice or receipt appended once after an entry. */
export interface WindowInsertV1 {
  /** An unbriefed-cuts notice (docs/behaviour.md B5.3) or a commit receipt (B3.5). */
  readonly kind: 'notice' | 'receipt';
  /** The entry it follows in the window. */
  readonly afterEntryId: string;
  /** Order among inserts after the same entry. */
  readonly sequence: number;
  /** The exact words shown, fixed once appended (docs/behaviour.md I7). */
  readonly text: string;
}

/** A peek whose result is replaced by a one-line stub once the model has replied. */
export interface EphemeralPeekV1 {
  /** The host's id of the peek call; its result entry answers this id. */
  readonly toolCallId: string;
  /** The fold that was peeked. */
  readonly foldId: string;
  /** True once the model replied and the result is shown as a stub. */
  readonly retired: boolean;
}

/** One (projection chars, provider tokens) pair used to calibrate chars per token. */
export interface CalibrationSampleV1 {
  /** Chars of the projection that was sent. */
  readonly chars: number;
  /** Prompt tokens the provider counted for it (input + cache read + cache write). */
  readonly tokens: number;
}

/** Counters reported by `status`. */
export interface EngineCountersV1 {
  /** Projections handed to the host. */
  readonly requests: number;
  /** Requests whose window extended the previous one byte for byte. */
  readonly pureAppends: number;
  /** Requests that rewrote the window (each with a recorded cause). */
  readonly rewrites: number;
  /** Rewrites without a cause: a broken invariant, must stay 0. */
  readonly unattributedRewrites: number;
  /** Pure appends the provider still billed as a cache miss (provider-side). */
  readonly providerCacheMisses: number;
  /** Commits that landed at least one fold. */
  readonly commits: number;
  /** Folds landed by all commits. */
  readonly foldsLanded: number;
}

/** The engine's whole mutable state for one session. */
export interface EngineStateV1 {
  /** State schema; readers migrate older versions forward. */
  readonly schemaVersion: 1;
  /** The session this state belongs to. */
  readonly sessionId: string;
  /** Increments on every saved change. */
  readonly revision: number;
  /** Committed fold ids in commit order (records live in the FoldStore). */
  readonly foldIds: readonly string[];
  /** Standing folds currently shown expanded. */
  readonly expanded: readonly string[];
  /** Pending marks, waiting for a commit. */
  readonly marks: readonly PendingMarkV1[];
  /** Pinned entry ids. */
  readonly pins: readonly string[];
  /** Spans returned to raw by the agent or a person. */
  readonly holds: readonly HeldSpanV1[];
  /** Notices and receipts in the window. */
  readonly inserts: readonly WindowInsertV1[];
  /** Peeks whose results are (or will be) given back. */
  readonly ephemeralPeeks: readonly EphemeralPeekV1[];
  /** Recent provider counts; the newest is the occupancy anchor. */
  readonly calibration: readonly CalibrationSampleV1[];
  /** Append/rewrite accounting for `status`. */
  readonly counters: EngineCountersV1;
  /** Number of the last commit. */
  readonly epoch: number;
  /** True when the current frozen projection already carries its one unbriefed-cuts notice (docs/behaviour.md B5.3). */
  readonly noticeShownSinceRewrite?: boolean;
  /**
   * Folds this session once listed whose record or source bytes the store can no longer give
   * back (deleted, evicted or damaged), each with why. Their spans show raw from the host's
   * transcript; `peek` names them as lost. Absent when nothing was lost.
   */
  readonly lostFolds?: readonly LostFoldV1[];
  /**
   * The first entry of the branch last projected (id and SHA-256 of its bytes). A process
   * that reopens the session compares it with what its host hands over, so another
   * conversation reusing the session id is noticed. Absent in states saved before it existed.
   */
  readonly transcriptAnchor?: TranscriptAnchorV1;
  /**
   * The spill policy this session decided its items under (docs/behaviour.md B6.2), fixed at its first request
   * so that a restart with other settings shows the same window. Absent in older states.
   */
  readonly spill?: { readonly thresholdBytes: number; readonly keepBytes: number };
  /**
   * What the last request's budget was worked out from (the model's window and id), so a
   * reopened session knows its budget before its first request. Absent in states saved
   * before it existed, and until a session's first request.
   */
  readonly requestContext?: StoredRequestContextV1;
  /**
   * The provider's newest answers on pure appends, each with the idle gap before its request
   * and whether the provider found its cache gone (docs/behaviour.md B3.3), so a reopened session
   * keeps what it learned about how long the cache lives. Absent until a report arrived.
   */
  readonly cacheReports?: readonly CacheReportV1[];
  /**
   * The session's pace (docs/behaviour.md B3.2), so a reopened session's cost policy knows it from its
   * first request. Absent in states saved before it existed, and before a first request.
   */
  readonly inflow?: InflowV1;
}

/** Tokens appended per request: the newest few samples, and the window last sent they grow from. */
export interface InflowV1 {
  readonly samples: readonly number[];
  /** Estimated tokens of the window last sent; the next request's growth is measured from it. */
  readonly lastSentTokens?: number;
}

/** One provider answer on a pure append: the idle gap before the request, and whether nothing was read from cache. */
export interface CacheReportV1 {
  readonly gapMs: number;
  readonly lost: boolean;
}

/** The part of a request's context the budget follows from (see `requestBudget` in core/settings/settings.ts). */
export interface StoredRequestContextV1 {
  /** The model's context window in tokens, when the host reported one. */
  readonly contextWindow?: number;
  /** The model the request went to, when the host named it. */
  readonly model?: { readonly id?: string; readonly provider?: string };
}

/** A fold the store can no longer give back, and why. */
export interface LostFoldV1 {
  readonly foldId: string;
  /** In words: its record is missing, its record is damaged, a blob is gone, or it nests such a fold. */
  readonly reason: string;
}

/** Identifies the conversation a session's state was made from. */
export interface TranscriptAnchorV1 {
  readonly entryId: string;
  readonly sha256: string;
}

export type EngineState = EngineStateV1;
