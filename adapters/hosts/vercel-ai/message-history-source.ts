import type { ModelMessage } from 'ai';
import type { BranchRead, KnownBranch, TranscriptSource } from '../../../ports/transcript-source.port.ts';
import type { MessageEntryMapper } from './message-entries.ts';

/**
 * The AI SDK's TranscriptSource: the message history a step is about to send, as entries
 * with stable ids. The SDK hands the whole history to every step, and a host may edit it
 * between calls. The mapper's ids are chained (each hashes the id before it and its own
 * bytes), so the id at the engine's last position names everything before it: when it is
 * still there, the history only grew and the read hands the appended entries alone (the
 * engine checks none of the prefix again); anything else hands the whole branch and the
 * engine finds what changed.
 */
export class MessageHistorySource implements TranscriptSource {
  readonly specificationVersion = 'v1' as const;
  private history: readonly ModelMessage[] = [];

  constructor(
    readonly sessionId: string,
    private readonly mapper: MessageEntryMapper,
  ) {}

  /** The history the next request is built from. */
  update(history: readonly ModelMessage[]): void {
    this.history = history;
  }

  read(known: KnownBranch): BranchRead {
    const entries = this.mapper.toEntries(this.history);
    const extendsKnown =
      known.length > 0 && known.lastEntryId !== undefined && entries[known.length - 1]?.id === known.lastEntryId;
    if (extendsKnown)
      return { kind: 'appended', afterEntryId: known.lastEntryId, entries: entries.slice(known.length) };
    return { kind: 'branch', entries };
  }
}
