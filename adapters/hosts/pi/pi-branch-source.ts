import type { BranchRead, TranscriptEntry, TranscriptSource } from '../../../ports/transcript-source.port.ts';

/**
 * Pi's TranscriptSource: the active branch of the session tree, as the context hook mapped
 * it from Pi's messages and entries for this request. Pi builds the branch afresh for every
 * model call (a `/tree` jump or an extension's edit can change any of it), so each read
 * hands the whole branch and the engine finds where it changed.
 */
export class PiBranchSource implements TranscriptSource {
  readonly specificationVersion = 'v1' as const;
  private entries: readonly TranscriptEntry[] = [];

  constructor(readonly sessionId: string) {}

  /** The branch as mapped for the request about to go out. */
  update(entries: readonly TranscriptEntry[]): void {
    this.entries = entries;
  }

  read(): BranchRead {
    return { kind: 'branch', entries: this.entries };
  }
}
