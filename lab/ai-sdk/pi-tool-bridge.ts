import type { ToolDefinition } from '@mariozechner/pi-coding-agent';
import { jsonSchema, type Tool, tool } from 'ai';

/**
 * One of the staged workload's Pi tools (Pi's `read`, `repo_stage`, `submit_answers`) as an
 * AI SDK tool: the same schema, the same execution and the same result text, so the AI SDK
 * arms read the same bytes the Pi arms do. A tool that throws becomes the SDK's error result.
 */
// biome-ignore lint/suspicious/noExplicitAny: Pi's own tool definitions carry their own parameter and detail types
export function piToolAsSdkTool(definition: ToolDefinition<any, any>): Tool<Record<string, unknown>, string> {
  return tool({
    description: definition.description,
    inputSchema: jsonSchema<Record<string, unknown>>(definition.parameters as never),
    execute: async (input, { toolCallId, abortSignal }) => {
      const result = await definition.execute(toolCallId, input, abortSignal, undefined, undefined as never);
      return (result.content as readonly { type: string; text?: string }[])
        .map((part) => (part.type === 'text' ? (part.text ?? '') : `[${part.type}]`))
        .join('\n');
    },
  });
}
