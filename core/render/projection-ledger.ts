import type { LedgerRow, ProjectedMessage, RewriteCause } from '../../ports/projection-sink.port.ts';
import type { WindowDraft, WindowView } from './window-log.ts';

/** First index at which two projections differ (the shorter length when one extends the other). */
export function divergenceIndex(previous: readonly ProjectedMessage[], next: readonly ProjectedMessage[]): number {
  const shared = Math.min(previous.length, next.length);
  for (let position = 0; position < shared; position += 1) {
    // Unchanged messages are the same cached objects, so this is usually a pointer check.
    if (previous[position] !== next[position] && previous[position]!.digest !== next[position]!.digest) return position;
  }
  return shared;
}

export function totalChars(messages: readonly ProjectedMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += message.bytes.length;
  return chars;
}

/** Build the ledger row of one request (docs/behaviour.md B7.1) and say whether it was a rewrite. */
export function ledgerRow(input: {
  request: number;
  previous: WindowView | undefined;
  draft: WindowDraft;
  causes: readonly RewriteCause[];
  estimatedTokens: number;
  preCommitTokens: number;
  budgetTokens: number;
  foldsLanded: number;
  /**
   * The window the stored state stood for is gone (another conversation under this session id): a
   * rewrite with no previous view in memory.
   */
  replacesStoredWindow?: boolean;
}): { row: Omit<LedgerRow, 'digests'>; rewrite: boolean } {
  const { previous, draft } = input;
  const previousLength = previous?.length ?? 0;
  // A draft built as an append of the previous view diverges exactly where that view ended.
  const divergence =
    draft.extendsFrozen !== undefined
      ? draft.extendsFrozen
      : divergenceIndex(
          previous === undefined ? [] : previous.log.messages.slice(0, previous.length),
          draft.log.messages,
        );
  const rewrite = divergence < previousLength || input.replacesStoredWindow === true;
  let appendedChars = 0;
  for (let position = divergence; position < draft.length; position += 1)
    appendedChars += draft.log.messages[position]!.bytes.length;
  const row = {
    request: input.request,
    causes: rewrite ? [...input.causes] : [],
    divergenceIndex: divergence,
    unattributed: rewrite && input.causes.length === 0,
    appendedChars,
    totalChars: draft.chars,
    estimatedTokens: input.estimatedTokens,
    preCommitTokens: input.preCommitTokens,
    budgetTokens: input.budgetTokens,
    foldsLanded: input.foldsLanded,
  };
  return { row, rewrite };
}
