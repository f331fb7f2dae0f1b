import type { ToolDefinition } from '@mariozechner/pi-coding-agent';
import { jsonSchema, type Tool, tool } from 'ai';

/**
 * One of the staged workload's Pi tools (Pi's `read`, `repo_stage`, `submit_answers`) as an
 * AI SDK tool: the same schema, the same execution and the same result text, so the AI SDK
 * arms read the same bytes the Pi arms do. A tool that throws becomes the SDK's error result.
 */
/** `onResult` sees every result text (the arm counts file reads with it, whether or not the loop finishes). */
export function piToolAsSdkTool(
  // biome-ignore lint/suspicious/noExplicitAny: as above
  definition: ToolDefinition<any, any>,
  onResult?: (text: string) => void,
): Tool<Record<string, unknown>, string> {
  return tool({
    description: definition.description,
    inputSchema: jsonSchema<Record<string, unknown>>(definition.parameters as never),
    execute: async (input, { toolCallId, abortSignal }) => {
      const result = await definition.execute(toolCallId, input, abortSignal, undefined, undefined as never);
      const text = (result.content as readonly { type: string; text?: string }[])
        .map((part) => (part.type === 'text' ? (part.text ?? '') : `[${part.type}]`))
        .join('\n');
      onResult?.(text);
      return text;
    },
  });
}
