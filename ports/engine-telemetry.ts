/** What the engine tells observers beside each projection: commits, provider usage, agent actions. Types only. */

import type { RewriteCause } from './ledger-row.ts';

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
