/**
 * TranscriptSource: how a host hands the engine its active branch.
 *
 * The engine never edits the transcript. It reads the ordered message entries of the
 * active branch on every request and decides what the model sees.
 */

export type { EntryRole, ToolCallReference, TranscriptEntry } from './transcript-entry.ts';

import type { TranscriptEntry } from './transcript-entry.ts';

/** What the engine already holds of the branch, handed to the source at each read. */
export interface KnownBranch {
  /** Id of the newest entry the engine indexed; undefined before the first read. */
  readonly lastEntryId: string | undefined;
  /** How many entries the engine indexed. */
  readonly length: number;
}

/** What a source hands over at one read. */
export type BranchRead =
  /**
   * The whole active branch, oldest first. The engine compares it with what it holds: a
   * pure append costs what it adds; a branch switch or a rewrite of history (an entry
   * changed, removed or replaced before the end) is found at the first differing position.
   */
  | { readonly kind: 'branch'; readonly entries: readonly TranscriptEntry[] }
  /**
   * Only the entries after `afterEntryId`, for a host that knows nothing before it changed.
   * `afterEntryId` must be the `lastEntryId` the engine handed in; otherwise the read is
   * refused (`TRANSCRIPT.STALE_READ`) and the host hands the whole branch instead.
   */
  | {
      readonly kind: 'appended';
      readonly afterEntryId: string | undefined;
      readonly entries: readonly TranscriptEntry[];
    };

/**
 * How a host hands the engine its active branch, once per request (`FoldRuntime.project`
 * reads it). The engine never edits the transcript: it only reads entries and decides what
 * the model sees. Implementations: the Pi adapter (`PiBranchSource`), the AI SDK adapter
 * (`MessageHistorySource`), and `MemoryTranscriptSource` in `pi-fold/testing`.
 */
export interface TranscriptSourceV1 {
  readonly specificationVersion: 'v1';
  /** The session these entries belong to (checked against the runtime's). */
  readonly sessionId: string;
  /** The branch as it stands, or what was appended to it since `known`. */
  read(known: KnownBranch): BranchRead;
}

export type TranscriptSource = TranscriptSourceV1;
