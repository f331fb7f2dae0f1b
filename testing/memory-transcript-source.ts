import type { BranchRead, KnownBranch, TranscriptEntry, TranscriptSource } from '../ports/transcript-source.port.ts';

/**
 * A TranscriptSource over an in-memory branch: the reference implementation of the port.
 * It knows what it handed over, so after pure appends it hands only the new entries
 * (`appended`); after `replace` (a branch switch, a rewrite of history) or when the engine
 * holds something else than it handed, it hands the whole branch and lets the engine compare.
 */
export class MemoryTranscriptSource implements TranscriptSource {
  readonly specificationVersion = 'v1' as const;
  private branch: TranscriptEntry[] = [];
  /** How many entries of `branch` the engine was handed, unchanged since; undefined after a replace. */
  private handed: number | undefined = 0;

  constructor(
    readonly sessionId: string,
    entries: readonly TranscriptEntry[] = [],
  ) {
    this.branch = [...entries];
  }

  /** The branch as it stands (a copy). */
  get entries(): readonly TranscriptEntry[] {
    return [...this.branch];
  }

  /** The host added entries at the end of the branch. */
  append(...entries: readonly TranscriptEntry[]): void {
    this.branch.push(...entries);
  }

  /** The host switched branch or rewrote history: the branch is now `entries`. */
  replace(entries: readonly TranscriptEntry[]): void {
    this.branch = [...entries];
    this.handed = undefined;
  }

  read(known: KnownBranch): BranchRead {
    const handed = this.handed;
    this.handed = this.branch.length;
    const lastHanded = handed === undefined || handed === 0 ? undefined : this.branch[handed - 1]!.id;
    if (handed !== undefined && known.length === handed && known.lastEntryId === lastHanded) {
      return { kind: 'appended', afterEntryId: lastHanded, entries: this.branch.slice(handed) };
    }
    return { kind: 'branch', entries: [...this.branch] };
  }
}
