import type { LostFoldV1 } from '../../ports/fold-records.ts';
import type { LedgerRow, RequestContext, RewriteCause } from '../../ports/shared-types.ts';
import type { TranscriptEntry } from '../../ports/transcript-entry.ts';
import { FoldLattice, type PlacedFold } from '../folds/fold-lattice.ts';
import type { WindowView } from '../render/window-log.ts';
import { TranscriptIndex } from '../transcript/transcript-index.ts';
import type { EngineMemory } from './engine-memory.ts';
import type { ForcedCommit } from './forced-commit.ts';

/**
 * What one session knows and has decided: the branch as indexed, the fold forest over it, the
 * persisted decisions, the window last handed out and what the next request must know of the
 * last one. It is the part of a session that requests change; the ports are fixed and the
 * services (`SessionServices`) keep only what they derive from this.
 *
 * Who writes what: a request's steps write the index, the forest and the decisions, and
 * `projectRequest` alone writes back the request's outcome (the frozen window, the context,
 * the budget, the forced commit). The facade writes what a host tells it between requests.
 */
export class SessionModel {
  readonly index: TranscriptIndex;
  readonly lattice: FoldLattice;
  /** Replaced whole only when a refused action puts its decisions back. */
  memory: EngineMemory;
  /** The projection most recently handed to the host: the prefix the next one must extend. */
  frozenView: WindowView | undefined;
  /** Collapsed folds visible in the window, in order, from the last full render. */
  visibleFolds: PlacedFold[] = [];
  /** Rewrites requested by actions, applied at the next projection. */
  readonly pendingCauses = new Set<RewriteCause>();
  /** A commit a person or the host asked for at the next projection. */
  forcedCommit: ForcedCommit | undefined;
  lastBudget: number | undefined;
  lastContext: RequestContext = {};
  /** Restored from the store and not yet compared with a branch from the host (see conversation-check.ts). */
  restoredUnchecked = false;
  /** Folds found lost when the session was reopened: named once, in the first projection's warnings. */
  lostSinceLastRun: readonly LostFoldV1[] = [];
  /** Whether this session has told the host it renames entries (told once). */
  renamedIdsReported = false;
  /** Ledger rows of the latest requests, oldest first. */
  readonly ledger: LedgerRow[] = [];

  /** `windowChars` sizes an entry in the window (its spilled form when a part is spilled). */
  constructor(memory: EngineMemory, windowChars: (entry: TranscriptEntry) => number) {
    this.memory = memory;
    this.index = new TranscriptIndex(windowChars);
    this.lattice = new FoldLattice(this.index);
  }
}
