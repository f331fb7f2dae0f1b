import type { LedgerRow, ProjectedMessage, RewriteCause } from '../ports/projection-sink.port.ts';

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

/** Build the ledger row of one request (B7.1) and say whether it was a rewrite. */
export function ledgerRow(input: {
  request: number;
  previous: readonly ProjectedMessage[] | undefined;
  messages: readonly ProjectedMessage[];
  causes: readonly RewriteCause[];
  estimatedTokens: number;
  preCommitTokens: number;
  budgetTokens: number;
  foldsLanded: number;
}): { row: LedgerRow; rewrite: boolean } {
  const previous = input.previous ?? [];
  const divergence = divergenceIndex(previous, input.messages);
  const rewrite = divergence < previous.length;
  let appendedChars = 0;
  for (let position = divergence; position < input.messages.length; position += 1) appendedChars += input.messages[position]!.bytes.length;
  const row: LedgerRow = {
    request: input.request,
    causes: rewrite ? [...input.causes] : [],
    divergenceIndex: divergence,
    unattributed: rewrite && input.causes.length === 0,
    appendedChars,
    totalChars: totalChars(input.messages),
    estimatedTokens: input.estimatedTokens,
    preCommitTokens: input.preCommitTokens,
    budgetTokens: input.budgetTokens,
    foldsLanded: input.foldsLanded,
    digests: input.messages.map((message) => message.digest),
  };
  return { row, rewrite };
}
