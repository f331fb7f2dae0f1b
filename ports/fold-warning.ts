/** The soft problems a projection reports while the request still goes out, as coded records. Types only. */

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
  | 'STORE.FOLDS_LOST'
  /** The host handed entries back unchanged under new ids: each time they fold again as new. */
  | 'TRANSCRIPT.IDS_RENAMED';

/** A soft problem as a record a host can branch on; `message` is the sentence hosts show. */
export interface FoldWarning {
  readonly code: FoldWarningCode;
  readonly message: string;
  readonly details: Readonly<Record<string, string | number | boolean | null>>;
}
