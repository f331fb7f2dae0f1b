import type { RewriteCause } from '../../ports/projection-sink.port.ts';

/** Causes a host or a person may force a commit under. */
export type ForcedCommitCause = Extract<RewriteCause, 'user-fold' | 'overflow-recovery'>;

/** A commit a person (`/fold`) or a host (overflow recovery) asked for at the next projection. */
export interface ForcedCommit {
  readonly cause: ForcedCommitCause;
  /** Land only these marks; absent means every mark. */
  readonly markIds?: ReadonlySet<string>;
}
