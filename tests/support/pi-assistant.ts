import type { AssistantMessage } from '@mariozechner/pi-ai';
import { ZERO_USAGE } from '../../testing/pi/scripted-provider.ts';

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
    usage: ZERO_USAGE,
    stopReason,
    timestamp: 0,
    ...extra,
  } as AssistantMessage;
}
