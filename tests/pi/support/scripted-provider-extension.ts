import {
  type AssistantMessage,
  type Context,
  createAssistantMessageEventStream,
  type ToolResultMessage,
} from '@mariozechner/pi-ai';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';

/**
 * A Pi extension that registers an offline "scripted" provider for CLI runs: the model
 * calls pi_fold_context status once, then answers with the first line of what it got back.
 * Loaded with `-e` next to pi-fold, so `pi -p` completes without any network.
 */
export default function scriptedProvider(pi: ExtensionAPI): void {
  pi.registerProvider('scripted', {
    api: 'scripted-cli-api',
    apiKey: 'offline',
    baseUrl: 'http://localhost:0',
    models: [
      {
        id: 's1',
        name: 'Scripted',
        reasoning: false,
        input: ['text'],
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow: 200_000,
        maxTokens: 8192,
      },
    ],
    streamSimple: (model, context: Context) => {
      const stream = createAssistantMessageEventStream();
      const chars = context.messages.reduce(
        (sum, message) => sum + JSON.stringify(message).length,
        (context.systemPrompt ?? '').length,
      );
      const tokens = Math.ceil(chars / 4);
      const last = context.messages.at(-1);
      const answered = last?.role === 'toolResult' ? (last as ToolResultMessage) : undefined;
      const usage = {
        input: tokens,
        output: 10,
        cacheRead: 0,
        cacheWrite: 0,
        totalTokens: tokens + 10,
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
      };
      const base = {
        role: 'assistant' as const,
        api: model.api,
        provider: model.provider,
        model: model.id,
        usage,
        timestamp: Date.now(),
      };
      const message: AssistantMessage =
        answered === undefined
          ? {
              ...base,
              content: [
                { type: 'toolCall', id: 'cli_call_1', name: 'pi_fold_context', arguments: { action: 'status' } },
              ],
              stopReason: 'toolUse',
            }
          : {
              ...base,
              content: [
                {
                  type: 'text',
                  text: `pi-fold says: ${
                    answered.content
                      .map((block) => (block.type === 'text' ? block.text : ''))
                      .join('')
                      .split('\n')[0]
                  }`,
                },
              ],
              stopReason: 'stop',
            };
      queueMicrotask(() => {
        stream.push({ type: 'start', partial: message });
        stream.push({ type: 'done', reason: message.stopReason as 'stop' | 'toolUse', message });
        stream.end(message);
      });
      return stream;
    },
  });
}
