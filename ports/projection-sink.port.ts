/**
 * ProjectionSink: receives every projection with its ledger row (B7.1) and hands it to the
 * host (Pi's `context` result, an AI SDK prompt) or records it (tests, the lab).
 */

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
       * ingestion (B6.2): the host sends its own message with those parts replaced by the
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

/** The ledger row of one request (B7.1). */
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

export interface ProjectionSinkV1 {
  readonly specificationVersion: 'v1';
  /** Called once per request with the projection that will be sent. */
  accept(projection: Projection): void;
  /** Called when a commit lands and again when its request's usage is measured. Optional. */
  acceptCommitTelemetry?(event: CommitTelemetry): void;
  /** Called once per request with the provider's own counts, as the host reported them. Optional. */
  acceptUsage?(event: UsageTelemetry): void;
  /** Called after every agent action, answered or refused. Optional. */
  acceptAction?(event: ActionTelemetry): void;
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

export type ProjectionSink = ProjectionSinkV1;
