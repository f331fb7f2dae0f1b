/** What the engine hands out for one request: the window, its ledger row and the warnings. Types only. */

import type { FoldWarning } from './fold-warning.ts';
import type { LedgerRow } from './ledger-row.ts';
import type { ProjectedMessage } from './projected-message.ts';

/** One projection as a ProjectionSink receives it: the window and its ledger row. */
export interface Projection {
  readonly messages: readonly ProjectedMessage[];
  readonly ledger: LedgerRow;
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
