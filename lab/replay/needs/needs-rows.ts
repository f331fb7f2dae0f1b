import type { NeedKind } from './need-pieces.ts';
import type { NeedScore } from './score-need.ts';

/**
 * The loss table's rows: what each arm (and the recording itself) kept of what the recorded
 * model needed. The tally fills them and the reports read them, so they need neither.
 */

/** Counts of needs by score. `notReached`: the arm stopped before the request that used them. */
export type NeedCounts = Record<NeedScore | 'needs' | 'notReached', number>;

/** What taking back the one-call-away and re-obtainable needs would have cost an arm. */
export interface RecoveryBill {
  /** Peeks and re-reads, each once per request however many needs it serves. */
  readonly calls: number;
  /** Requests the calls take: one per request that needed any. */
  readonly requests: number;
  /** Tokens the calls bring back into the window (provider's tokens). */
  readonly tokens: number;
  readonly usd: number;
}

/** One row of the loss table: an arm of the replay, or the recording's own windows. */
export interface NeedsRow {
  readonly name: string;
  /** `arm`: a replayed arm; `recorded`: the windows the recording's host really sent (its real summaries). */
  readonly source: 'arm' | 'recorded';
  readonly counts: NeedCounts;
  readonly byKind: Readonly<Record<NeedKind, NeedCounts>>;
  /** Absent on recorded rows: no requests were replayed for them. */
  readonly recovery?: RecoveryBill;
}

/** A replay's needs, scored per arm, for the reports (`LabRun.needs`). */
export interface NeedsReport {
  readonly rows: readonly NeedsRow[];
  /** Distinct pieces among the needs. */
  readonly distinctPieces: number;
}
