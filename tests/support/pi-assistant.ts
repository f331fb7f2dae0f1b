import type { AssistantMessage } from '@mariozechner/pi-ai';

/** A Pi assistant message for tests that build one by hand: no usage, a scripted model. */
export function piAssistant(
  content: AssistantMessage['content'],
  stopReason: AssistantMessage['stopReason'] = 'toolUse',
  extra: Partial<AssistantMessage> = {},
): AssistantMessage {
  return {
    role: 'assistant',
    content,
    api: 'scripted-api',
    provider: 'scripted',
    model: 's1',
    usage: {
      input: 0,
      output: 0,
      cacheRead: 0,
      cacheWrite: 0,
      totalTokens: 0,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    },
    stopReason,
    timestamp: 0,
    ...extra,
  } as AssistantMessage;
}
