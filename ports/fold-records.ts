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
  readonly schemaVersion: 1;
  /** `fold_` + 24 hex chars, derived from kind and span: the same span always gets the same id. */
  readonly id: string;
  readonly kind: FoldKind;
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
  readonly brief: string;
  readonly provenance: BriefProvenance;
  /** For tool folds: the calls whose results were folded (their stubs keep the pairing). */
  readonly toolCalls?: readonly { readonly toolCallId: string; readonly toolName: string }[];
  /** Monotonic commit number that landed this fold. */
  readonly epoch: number;
}

export type FoldRecord = FoldRecordV1;

/** A pending fold: a decision held in state, outside the window. */
export interface PendingMarkV1 {
  readonly id: string;
  readonly kind: FoldKind;
  readonly origin: FoldOrigin;
  readonly firstEntryId: string;
  readonly lastEntryId: string;
  /** The agent's or person's own words, kept verbatim; absent means deterministic at commit. */
  readonly brief?: string;
  /** Request number at which the mark was cut (stalest first = lowest span start). */
  readonly cutAtRequest: number;
}

/** A span the agent or a person returned to raw: never cut automatically again. */
export interface HeldSpanV1 {
  readonly firstEntryId: string;
  readonly lastEntryId: string;
}

/** A notice or receipt appended once after an entry. */
export interface WindowInsertV1 {
  readonly kind: 'notice' | 'receipt';
  readonly afterEntryId: string;
  /** Order among inserts after the same entry. */
  readonly sequence: number;
  readonly text: string;
}

/** A peek whose result is replaced by a one-line stub once the model has replied. */
export interface EphemeralPeekV1 {
  readonly toolCallId: string;
  readonly foldId: string;
  readonly retired: boolean;
}

/** One (projection chars, provider tokens) pair used to calibrate chars per token. */
export interface CalibrationSampleV1 {
  readonly chars: number;
  readonly tokens: number;
}

/** Counters reported by `status`. */
export interface EngineCountersV1 {
  readonly requests: number;
  readonly pureAppends: number;
  readonly rewrites: number;
  readonly unattributedRewrites: number;
  readonly providerCacheMisses: number;
  readonly commits: number;
  readonly foldsLanded: number;
}

/** The engine's whole mutable state for one session. */
export interface EngineStateV1 {
  readonly schemaVersion: 1;
  readonly sessionId: string;
  /** Increments on every saved change. */
  readonly revision: number;
  /** Committed fold ids in commit order (records live in the FoldStore). */
  readonly foldIds: readonly string[];
  readonly expanded: readonly string[];
  readonly marks: readonly PendingMarkV1[];
  readonly pins: readonly string[];
  readonly holds: readonly HeldSpanV1[];
  readonly inserts: readonly WindowInsertV1[];
  readonly ephemeralPeeks: readonly EphemeralPeekV1[];
  readonly calibration: readonly CalibrationSampleV1[];
  readonly counters: EngineCountersV1;
  readonly epoch: number;
}

export type EngineState = EngineStateV1;
