/** The ledger: one row per request, and the causes a rewrite records (docs/behaviour.md B7.1). Types only. */

/** Why a projection differs from a pure append of the previous one. */
export type RewriteCause =
  | 'commit'
  | 'expand'
  | 'refold'
  | 'user-fold'
  | 'overflow-recovery'
  | 'give-back'
  | 'transcript-changed';

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
