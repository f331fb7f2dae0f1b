/**
 * The engine's own vocabulary, shared by every port and every host: what a host hands in
 * (transcript entries, the request's context) and what the engine hands out (projected
 * messages, ledger rows, commit telemetry, coded warnings). Types only.
 */

/** Roles the engine distinguishes. Host extras that reach the model map to `user`. */
export type EntryRole = 'user' | 'assistant' | 'toolResult';

/** One tool call inside an assistant entry. */
export interface ToolCallReference {
  /** The host's tool call id; results point back to it. */
  readonly id: string;
  /** Tool name as the model called it. */
  readonly name: string;
  /** The call's arguments as stable JSON (used in briefs). */
  readonly argumentsJson: string;
}

/** One message entry of the active branch. Immutable once the host has produced it. */
export interface TranscriptEntry {
  /**
   * Stable id of the entry. Must be unique in the session, and stable across requests:
   * the same message keeps the same id on every read. An id also names the entry's place
   * on its branch: two reads that show the same id at the same position share every entry
   * before it (true of Pi's entry tree, and of ids chained from the previous entry's id).
   * The engine still compares every position, so a host that slips here costs a rewrite, not a wrong window.
   */
  readonly id: string;
  /** What kind of message this is. */
  readonly role: EntryRole;
  /**
   * The exact canonical bytes of the host message (single-line, e.g. stable JSON).
   * Folding stores these bytes; expanding returns exactly them. Must not contain a newline
   * character, because fold sources are stored one entry per line.
   */
  readonly bytes: string;
  /** SHA-256 (hex) of `bytes` in UTF-8, when the host already has it. Computed when absent. */
  readonly sha256?: string;
  /** Human-readable text of the message (text blocks joined); used for briefs only. */
  readonly text: string;
  /** Tool calls carried by an assistant entry, in order. */
  readonly toolCalls?: readonly ToolCallReference[];
  /** For a `toolResult` entry: the id of the call it answers. */
  readonly toolCallId?: string;
  /** For a `toolResult` entry: the tool's name. */
  readonly toolName?: string;
  /**
   * True when the host cannot vouch for the entry (e.g. a message another extension injected):
   * protected entries are never folded.
   * @default false
   */
  readonly protected?: boolean;
  /**
   * Chars of what the model reads of this message, counted as Pi's own token estimate counts
   * them (text, thinking, tool-call names and arguments, result text; an image as 4,800),
   * without the host's bookkeeping that `bytes` also carries (usage, timestamps, model names).
   * The raw working-set floor is measured with it (docs/cost-scheduling.md). A non-negative
   * integer of at most 2^31 − 1: any other value is refused as `TRANSCRIPT.INVALID_ENTRY`.
   * @default the length of `bytes`
   */
  readonly contentChars?: number;
}

/** Why a projection differs from a pure append of the previous one. */
export type RewriteCause =
  | 'commit'
  | 'expand'
  | 'refold'
  | 'user-fold'
  | 'overflow-recovery'
  | 'give-back'
  | 'transcript-changed';

/** One message of a projection, in a host-neutral form. */
export type ProjectedMessage =
  | {
      /** A transcript entry shown as the host had it. */
      readonly kind: 'entry';
      readonly entryId: string;
      readonly bytes: string;
      readonly digest: string;
    }
  | {
      /** Text the runtime writes as a user-role message: a fold placeholder, a notice or a receipt. */
      readonly kind: 'synthetic';
      readonly origin: 'placeholder' | 'notice' | 'receipt';
      readonly foldId?: string;
      readonly text: string;
      readonly bytes: string;
      readonly digest: string;
    }
  | {
      /**
       * A tool result or an assistant entry with an oversized part spilled to evidence at
       * ingestion (docs/behaviour.md B6.2): the host sends its own message with those parts replaced by the
       * window form here (head, pointer, tail). The transcript itself is never edited.
       */
      readonly kind: 'spilled';
      readonly entryId: string;
      readonly role: 'toolResult' | 'assistant';
      /** toolResult: the call it answers. */
      readonly toolCallId?: string;
      /** toolResult: the text shown in place of the result's text (non-text parts stay as they are). */
      readonly resultText?: string;
      /** assistant: the calls whose arguments were spilled, with the arguments (stable JSON) shown instead. */
      readonly toolCallArguments?: readonly SpilledToolCallArguments[];
      /** The exact artifacts behind the window form, in order. */
      readonly spills: readonly SpillPointer[];
      /** A neutral serialisation of the window form (its size is what the window carries). */
      readonly bytes: string;
      readonly digest: string;
    }
  | {
      /** A tool result shown as a short stub, so the call keeps its result (pairing survives). */
      readonly kind: 'stub';
      readonly origin: 'fold-stub' | 'peek-stub';
      readonly entryId: string;
      readonly toolCallId: string;
      readonly toolName: string;
      readonly foldId: string;
      readonly text: string;
      readonly bytes: string;
      readonly digest: string;
    };

/** Where the exact bytes of one spilled item are kept: what `peek` and `search` read and verify. */
export interface SpillPointer {
  /** `sp_` + the first 20 hex chars of `sha256`: peekable like a fold id. */
  readonly id: string;
  /** SHA-256 (hex) of the item's exact UTF-8 bytes. */
  readonly sha256: string;
  /** Size of the item in UTF-8 bytes. */
  readonly bytes: number;
  /** Bytes of the item's start the window keeps. */
  readonly headBytes: number;
  /** Bytes of the item's end the window keeps. */
  readonly tailBytes: number;
}

/** One tool call whose arguments are shown with spilled values. */
export interface SpilledToolCallArguments {
  readonly toolCallId: string;
  /** The arguments as stable JSON, oversized values replaced by their window form. */
  readonly argumentsJson: string;
}

/** The ledger row of one request (docs/behaviour.md B7.1). */
export interface LedgerRow {
  /** 1-based request number in this session. */
  readonly request: number;
  /** Causes recorded for a rewrite; empty for a pure append. */
  readonly causes: readonly RewriteCause[];
  /** First message index whose bytes differ from the previous projection (its length for a pure append). */
  readonly divergenceIndex: number;
  /** True when the projection diverged without a recorded cause (must never happen). */
  readonly unattributed: boolean;
  /** Bytes (UTF-16 code units) added after the divergence point. */
  readonly appendedChars: number;
  /** Total chars of the projection. */
  readonly totalChars: number;
  /** Estimated prompt tokens of the projection (anchored on the provider's last count). */
  readonly estimatedTokens: number;
  /** Estimated tokens before this request's commit (equal to `estimatedTokens` when nothing committed). */
  readonly preCommitTokens: number;
  readonly budgetTokens: number;
  /** Folds landed by this request's commit (0 when none). */
  readonly foldsLanded: number;
  /** Per-message SHA-256 digests, in order. */
  readonly digests: readonly string[];
  /** The provider's cache read for this request, once reported. */
  providerCacheRead?: number;
}

export interface Projection {
  readonly messages: readonly ProjectedMessage[];
  readonly ledger: LedgerRow;
}

/**
 * What one commit did, told twice: when it lands (estimates) and once the provider has
 * answered the request that carried it (measured counts). Hosts log it as it is.
 */
export interface CommitTelemetryV1 {
  readonly schemaVersion: 1;
  /** `landed` at the projection that carried the commit; `measured` after its usage arrived. */
  readonly phase: 'landed' | 'measured';
  readonly sessionId: string;
  /** The commit's epoch (monotonic per session). */
  readonly epoch: number;
  /** The request that carried the commit. */
  readonly request: number;
  readonly causes: readonly RewriteCause[];
  readonly foldsLanded: number;
  /** Estimated prompt tokens of the window had nothing been committed. */
  readonly estimatedTokensBefore: number;
  /** Estimated prompt tokens of the window that was sent. */
  readonly estimatedTokensAfter: number;
  /** The provider's prompt count for the request before the commit, when it was reported. */
  readonly measuredTokensBefore?: number;
  /** The provider's prompt count for the request that carried the commit (phase `measured`). */
  readonly measuredTokensAfter?: number;
  /** Messages of the previous window kept byte for byte (the cached prefix that survives). */
  readonly prefixMessagesKept: number;
  /** Chars of the previous window after the divergence point: the cached prefix the commit gave up. */
  readonly prefixCharsRewritten: number;
  /** The same, in estimated tokens (calibrated on the provider's counts at the time). */
  readonly prefixTokensRewritten: number;
  /** The provider's cache read on the request that carried the commit (phase `measured`). */
  readonly providerCacheRead?: number;
}

export type CommitTelemetry = CommitTelemetryV1;

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
   * has none, docs/behaviour.md I5). With the price list's cache lifetime it tells a cold cache (B3.3).
   */
  readonly requestTime?: number;
}

/** The provider's counts for one request, matched to the request they belong to. */
export interface UsageTelemetry {
  readonly request: number;
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly output: number;
  /** The runtime's own estimate of the prompt it sent, beside the provider's count. */
  readonly estimatedTokens: number;
  readonly budgetTokens: number;
}

/** One agent action (peek, expand, search, …) as it ended. */
export interface ActionTelemetry {
  /** The action's name, or `invalid` when the call named none the runtime knows. */
  readonly action: string;
  readonly outcome: 'answered' | 'refused';
  /** The refusal's code (`ACTION.UNKNOWN_ID`, …). */
  readonly code?: string;
  /** UTF-8 bytes of the answer handed back to the agent. */
  readonly answerBytes: number;
}

/** Codes of the soft problems a projection reports (the request still went out). */
export type FoldWarningCode =
  /** The store refused a write of the commit: nothing folded, the window is intact. */
  | 'STORE.COMMIT_SKIPPED'
  /** The store refused to save the session's state: the request went out unchanged. */
  | 'STORE.SAVE_REFUSED'
  /** A reopened session was handed another conversation than the one stored (a reused session id). */
  | 'TRANSCRIPT.SESSION_MISMATCH'
  /** The evidence store refused an oversized item's artifact: it stays raw in the window. */
  | 'STORE.SPILL_REFUSED'
  /** A reopened session lists folds whose record the store no longer holds: they show raw, the rest stay. */
  | 'STORE.FOLDS_LOST';

/** A soft problem as a record a host can branch on; `message` is the sentence hosts show. */
export interface FoldWarning {
  readonly code: FoldWarningCode;
  readonly message: string;
  readonly details: Readonly<Record<string, string | number | boolean | null>>;
}

/** What `project` returns: the window to send, its ledger row, and what the host should show. */
export interface ProjectionResult {
  readonly messages: readonly ProjectedMessage[];
  readonly ledger: LedgerRow;
  /** Soft problems the host should show once (e.g. a commit skipped because the store refused a write), as words. */
  readonly warnings: readonly string[];
  /** The same warnings as coded records, in the same order. */
  readonly warningRecords: readonly FoldWarning[];
}
