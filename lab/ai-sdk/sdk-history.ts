import { type ModelMessage, pruneMessages } from 'ai';
import type { SdkArmSetup } from './sdk-arms.ts';

/** What a lossy arm's `prepareStep` sends instead of the step's full history. */
export type HistoryPruner = (messages: ModelMessage[], lastPromptTokens: number) => ModelMessage[];

/** The SDK's own pruning, with the settings of its reference page and a chosen tool-call horizon. */
function pruned(messages: ModelMessage[], toolCallsKept: number): ModelMessage[] {
  return pruneMessages({
    messages,
    reasoning: 'before-last-message',
    toolCalls: `before-last-${toolCallsKept}-messages`,
    emptyMessages: 'remove',
  });
}

/**
 * The pruner of a `prune` or `prune-held` arm. A held cut is a developer's tuning of the
 * same call: the horizon is pinned to a message index that moves only when the last prompt
 * passed the high-water mark, so the pruned prefix is the same from one step to the next.
 */
export function historyPruner(setup: SdkArmSetup, windowTokens: number): HistoryPruner | undefined {
  if (setup.kind === 'prune') return (messages) => pruned(messages, setup.toolCallsKept);
  if (setup.kind !== 'prune-held') return undefined;
  let cut = 0;
  return (messages, lastPromptTokens) => {
    if (lastPromptTokens > setup.highWater * windowTokens) cut = Math.max(cut, messages.length - setup.toolCallsKept);
    return cut === 0 ? messages : pruned(messages, messages.length - cut);
  };
}
