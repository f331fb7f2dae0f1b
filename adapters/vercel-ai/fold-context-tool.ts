import { jsonSchema, tool, zodSchema, type Tool } from 'ai';
import { z } from 'zod';
import { ACTION_NAMES } from '../../core/actions/action-arguments.ts';
import { BRIEF_MAX_CHARS } from '../../core/briefs.ts';
import type { FoldRuntime } from '../../core/fold-runtime.ts';

/**
 * The shape of the agent's tool arguments, as the model is told it. The zod schema is the
 * source of the JSON schema only; validation is the engine's own (`parseAction`), so every
 * refusal the model sees is one FoldError message that names the problem.
 */
export const foldContextInputSchema = z.object({
  action: z.enum(ACTION_NAMES).describe('what to do: status, peek, brief, expand, refold, pin, unpin, reboundary or unmark'),
  id: z.string().optional().describe('a fold or mark id (peek, brief, expand, refold, unmark)'),
  ids: z.array(z.string()).optional().describe('entry, mark or fold ids (pin, unpin, reboundary)'),
  text: z.string().optional().describe(`brief: your own words for a pending fold, at most ${BRIEF_MAX_CHARS} chars`),
  brief: z.string().optional().describe('reboundary: optional brief for the new span'),
  detail: z.enum(['summary', 'tree']).optional().describe('status: "tree" lists every fold with depth and parent'),
  offset: z.number().int().optional().describe('peek: byte offset to read from'),
  bytes: z.number().int().optional().describe('peek: how many bytes to read'),
  ephemeral: z.boolean().optional().describe('peek: when true (default) the result shrinks to a one-line stub after your next reply'),
});

export type FoldContextInput = z.infer<typeof foldContextInputSchema>;

const DESCRIPTION = [
  'Manage your context window. Old spans are folded into short briefs; their exact text stays stored.',
  'status: budget, occupancy, pending marks and folds. peek {id}: read a fold\'s exact source.',
  'expand {id}: restore a fold in place; refold {id}: collapse it again. brief {id,text}: your words for a pending fold.',
  'pin/unpin {ids}: keep entries raw. reboundary {ids}: re-cut a span. unmark {id}: withdraw a pending mark.',
].join('\n');

/**
 * The nine-action tool (B4) as an AI SDK tool. A refusal is thrown as the engine's FoldError;
 * the SDK turns it into an error result for the model (the loop goes on, nothing changed).
 */
export function createFoldContextTool(runtime: FoldRuntime): Tool<FoldContextInput, string> {
  return tool({
    description: DESCRIPTION,
    inputSchema: jsonSchema<FoldContextInput>(() => zodSchema(foldContextInputSchema).jsonSchema, {
      // Hand every JSON object to the engine, whose messages name the exact problem.
      validate: (value) => ({ success: true, value: value as FoldContextInput }),
    }),
    execute: async (input, { toolCallId }) => {
      const answer = await runtime.act(input, { origin: 'agent', toolCallId });
      return answer.text;
    },
  });
}
