import type { ModelMessage, ToolApprovalResponse, ToolModelMessage, ToolResultPart } from 'ai';
import { replaceLoneSurrogates } from '../../../core/transcript/well-formed-text.ts';
import { sha256Hex } from '../../../core/util/hashing.ts';
import type { EntryRole, TranscriptEntry } from '../../../ports/transcript-source.port.ts';
import { canonicalBytes, messageText, toolOutputText } from './canonical-message.ts';

/** Where an entry came from: a whole message, or one part of a tool message. */
export type EntrySource =
  | { readonly kind: 'message'; readonly message: ModelMessage }
  | {
      readonly kind: 'tool-part';
      readonly message: ToolModelMessage;
      readonly part: ToolResultPart | ToolApprovalResponse;
    };

/** An entry before its id is known: ids depend on the chain of entries before it. */
interface EntryDraft {
  readonly role: EntryRole;
  readonly prefix: string;
  readonly bytes: string;
  readonly sha256: string;
  readonly text: string;
  readonly source: EntrySource;
  readonly rest: Pick<TranscriptEntry, 'toolCalls' | 'toolCallId' | 'toolName' | 'protected'>;
}

/**
 * Turns the AI SDK's message history into transcript entries with stable ids.
 *
 * The SDK gives messages no ids, so an entry's id is a hash of the id before it and the
 * entry's own canonical bytes: the same history always yields the same ids, in this
 * process or in the next one that resumes from stored messages, and an id can never be
 * reused by a different message at a different place. A tool message becomes one entry per
 * result part, because the engine folds and stubs results one at a time.
 *
 * Work is cached twice, so a step costs what was appended: per message object (its bytes
 * and digests, computed once) and per history (the entries of the longest prefix of message
 * objects seen on the previous call are reused as they are).
 */
export class MessageEntryMapper {
  private readonly draftsByMessage = new WeakMap<ModelMessage, readonly EntryDraft[]>();
  private readonly sourceById = new Map<string, EntrySource>();
  private previousMessages: readonly ModelMessage[] = [];
  private previousEntries: TranscriptEntry[] = [];
  /** previousEntryEnds[i] = number of entries produced by previousMessages[0..i]. */
  private previousEntryEnds: number[] = [];

  /** The entries of a history, oldest first. */
  toEntries(messages: readonly ModelMessage[]): TranscriptEntry[] {
    let reused = 0;
    const shared = Math.min(messages.length, this.previousMessages.length);
    while (reused < shared && messages[reused] === this.previousMessages[reused]) reused += 1;
    const entryCount = reused === 0 ? 0 : this.previousEntryEnds[reused - 1]!;
    const entries = this.previousEntries.slice(0, entryCount);
    const entryEnds = this.previousEntryEnds.slice(0, reused);
    let previousId = entries[entries.length - 1]?.id ?? 'start';
    for (let position = reused; position < messages.length; position += 1) {
      for (const draft of this.draftsOf(messages[position]!)) {
        const id = `${draft.prefix}_${sha256Hex(`${previousId}|${draft.sha256}`).slice(0, 32)}`;
        entries.push({
          id,
          role: draft.role,
          bytes: draft.bytes,
          sha256: draft.sha256,
          text: draft.text,
          ...draft.rest,
        });
        this.sourceById.set(id, draft.source);
        previousId = id;
      }
      entryEnds.push(entries.length);
    }
    this.previousMessages = messages.slice();
    this.previousEntries = entries;
    this.previousEntryEnds = entryEnds;
    return entries;
  }

  /** The message or tool part an entry id stands for, if this mapper produced it. */
  sourceOf(entryId: string): EntrySource | undefined {
    return this.sourceById.get(entryId);
  }

  private draftsOf(message: ModelMessage): readonly EntryDraft[] {
    let drafts = this.draftsByMessage.get(message);
    if (drafts === undefined) {
      drafts = describeMessage(message);
      this.draftsByMessage.set(message, drafts);
    }
    return drafts;
  }
}

function draft(
  role: EntryRole,
  prefix: string,
  bytes: string,
  text: string,
  source: EntrySource,
  rest: EntryDraft['rest'] = {},
): EntryDraft {
  // The bytes are JSON, which escapes a lone surrogate exactly; the text is only read (briefs),
  // so one there becomes U+FFFD rather than refuse the host's message (docs/behaviour.md I2).
  return { role, prefix, bytes, sha256: sha256Hex(bytes), text: replaceLoneSurrogates(text), source, rest };
}

function describeMessage(message: ModelMessage): EntryDraft[] {
  const whole: EntrySource = { kind: 'message', message };
  switch (message.role) {
    case 'system':
      // Instructions placed in the history are the host's, not the conversation's: never folded.
      return [draft('user', 's', canonicalBytes(message), message.content, whole, { protected: true })];
    case 'user':
      return [draft('user', 'u', canonicalBytes(message), messageText(message), whole)];
    case 'assistant': {
      const calls =
        typeof message.content === 'string'
          ? []
          : message.content.flatMap((part) =>
              // A provider-executed call is answered inside the same message: nothing to pair.
              part.type === 'tool-call' && part.providerExecuted !== true
                ? [{ id: part.toolCallId, name: part.toolName, argumentsJson: canonicalBytes(part.input ?? null) }]
                : [],
            );
      return [
        draft(
          'assistant',
          'a',
          canonicalBytes(message),
          messageText(message),
          whole,
          calls.length > 0 ? { toolCalls: calls } : {},
        ),
      ];
    }
    case 'tool': {
      if (message.content.length === 0)
        return [draft('user', 't', canonicalBytes(message), '', whole, { protected: true })];
      return message.content.map((part) => {
        const bytes = canonicalBytes({ role: 'tool', content: [part], providerOptions: message.providerOptions });
        const source: EntrySource = { kind: 'tool-part', message, part };
        if (part.type === 'tool-result') {
          return draft('toolResult', 'r', bytes, toolOutputText(part), source, {
            toolCallId: part.toolCallId,
            toolName: part.toolName,
          });
        }
        // An approval answer is not a result: kept raw, it also keeps its batch from folding.
        return draft('user', 'p', bytes, `tool approval ${part.approved ? 'granted' : 'denied'}`, source, {
          protected: true,
        });
      });
    }
  }
}
