/**
 * The request log: one compact row per projection handed to the host, and one per commit
 * measurement, kept beside a session's folds so a person can later see what folding did
 * (`pi-fold view`). An observation record: the engine never reads it back to decide anything.
 */

import type { RewriteCause } from './projection-sink.port.ts';

/** One request as it was sent. */
export interface RequestLogRequestV1 {
  readonly schemaVersion: 1;
  readonly kind: 'request';
  /** 1-based request number in the session. */
  readonly request: number;
  /** Estimated prompt tokens of the window sent (anchored on the provider's counts). */
  readonly estimatedTokens: number;
  readonly budgetTokens: number;
  /** Causes of a rewrite; empty for a pure append. */
  readonly causes: readonly RewriteCause[];
  readonly foldsLanded: number;
  /** Chars of the window, and the first message that differs from the previous request's. */
  readonly totalChars: number;
  readonly divergenceIndex: number;
  /** The provider's reported cache read for this request, when it arrived before the row was written. */
  readonly providerCacheRead?: number;
  /** Items spilled to evidence that this request's window showed for the first time (absent: none). */
  readonly spills?: readonly RequestLogSpillV1[];
}

/** One spilled item (docs/behaviour.md B6.2): where its exact bytes are kept and what the window showed of it. */
export interface RequestLogSpillV1 {
  /** `sp_` + 20 hex chars, peekable like a fold id. */
  readonly id: string;
  readonly entryId: string;
  readonly sha256: string;
  /** Size of the item in UTF-8 bytes, and of the head and tail the window kept. */
  readonly bytes: number;
  readonly headBytes: number;
  readonly tailBytes: number;
}

/** One commit, once the provider has measured the request that carried it. */
export interface RequestLogCommitV1 {
  readonly schemaVersion: 1;
  readonly kind: 'commit';
  readonly request: number;
  readonly epoch: number;
  readonly causes: readonly RewriteCause[];
  readonly foldsLanded: number;
  readonly estimatedTokensBefore: number;
  readonly estimatedTokensAfter: number;
  readonly prefixTokensRewritten: number;
  readonly measuredTokensAfter?: number;
  readonly providerCacheRead?: number;
}

export type RequestLogRowV1 = RequestLogRequestV1 | RequestLogCommitV1;
export type RequestLogRow = RequestLogRowV1;
