import type { LanguageModelV3CallOptions, LanguageModelV3Content, LanguageModelV3Prompt } from '@ai-sdk/provider';
import type { AssistantMessage, Context, Message, Tool } from '@mariozechner/pi-ai';

/**
 * The AI SDK's provider-level prompt, seen as the lab's simulated provider reads prompts:
 * pi-ai's `Context`. The simulated provider, its tokenizer, cache and the staged agent then
 * work unchanged, so an AI SDK arm is billed and answered by exactly the rules the Pi arms
 * are. Nothing is dropped: every text, call and result reaches the provider.
 */
export function sdkPromptAsContext(options: Pick<LanguageModelV3CallOptions, 'prompt' | 'tools'>): Context {
  const system = options.prompt.filter((message) => message.role === 'system').map((message) => message.content);
  const toolNames = new Map<string, string>();
  const messages: Message[] = [];
  for (const message of options.prompt) {
    const converted = messageAsPi(message, toolNames);
    if (converted !== undefined) messages.push(...converted);
  }
  const tools: Tool[] = (options.tools ?? []).flatMap((tool) =>
    tool.type === 'function'
      ? [{ name: tool.name, description: tool.description ?? '', parameters: tool.inputSchema as Tool['parameters'] }]
      : [],
  );
  return { systemPrompt: system.join('\n\n'), messages, tools };
}

type SdkMessage = LanguageModelV3Prompt[number];

function messageAsPi(message: SdkMessage, toolNames: Map<string, string>): Message[] | undefined {
  // Every message of one prompt shares one timestamp: the simulated provider never reads it.
  const timestamp = 0;
  switch (message.role) {
    case 'system':
      return undefined;
    case 'user':
      return [
        {
          role: 'user',
          content: message.content.flatMap((part) => (part.type === 'text' ? [{ type: 'text', text: part.text }] : [])),
          timestamp,
        },
      ];
    case 'assistant': {
      const content: AssistantMessage['content'] = [];
      for (const part of message.content) {
        if (part.type === 'text') content.push({ type: 'text', text: part.text });
        if (part.type === 'tool-call') {
          toolNames.set(part.toolCallId, part.toolName);
          content.push({
            type: 'toolCall',
            id: part.toolCallId,
            name: part.toolName,
            arguments: callArguments(part.input),
          });
        }
      }
      return [{ ...EMPTY_ASSISTANT, content, timestamp }];
    }
    case 'tool':
      return message.content.flatMap((part) =>
        part.type === 'tool-result'
          ? [
              {
                role: 'toolResult' as const,
                toolCallId: part.toolCallId,
                toolName: part.toolName ?? toolNames.get(part.toolCallId) ?? '',
                content: [{ type: 'text' as const, text: outputText(part.output) }],
                isError: part.output.type === 'error-text' || part.output.type === 'error-json',
                timestamp,
              },
            ]
          : [],
      );
  }
}

const EMPTY_ASSISTANT: Omit<AssistantMessage, 'content' | 'timestamp'> = {
  role: 'assistant',
  api: 'lab-simulated',
  provider: 'lab',
  model: 'lab-model',
  usage: {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  },
  stopReason: 'toolUse',
};

function callArguments(input: unknown): Record<string, unknown> {
  const value = typeof input === 'string' ? safeJson(input) : input;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

type ToolOutput = Extract<SdkMessage, { role: 'tool' }>['content'][number] & { type: 'tool-result' };

function outputText(output: ToolOutput['output']): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value);
    case 'execution-denied':
      return output.reason ?? 'execution denied';
    default:
      return JSON.stringify(output);
  }
}

/** The simulated provider's answer as the content of an AI SDK generate result. */
export function assistantAsSdkContent(message: AssistantMessage): LanguageModelV3Content[] {
  const content: LanguageModelV3Content[] = [];
  for (const part of message.content) {
    if (part.type === 'text') content.push({ type: 'text', text: part.text });
    if (part.type === 'toolCall')
      content.push({
        type: 'tool-call',
        toolCallId: part.id,
        toolName: part.name,
        input: JSON.stringify(part.arguments),
      });
  }
  return content;
}
