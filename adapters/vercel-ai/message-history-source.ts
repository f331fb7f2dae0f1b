import type { ModelMessage } from 'ai';
import type { BranchRead, TranscriptSource } from '../../ports/transcript-source.port.ts';
import type { MessageEntryMapper } from './message-entries.ts';

/**
 * The AI SDK's TranscriptSource: the message history a step is about to send, as entries
 * with stable ids. The SDK hands the whole history to every step (and a host may edit it
 * between calls), so each read hands the whole branch and the engine finds what changed.
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

  read(): BranchRead {
    return { kind: 'branch', entries: this.mapper.toEntries(this.history) };
  }
}
