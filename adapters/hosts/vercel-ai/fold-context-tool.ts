import { jsonSchema, type Tool, tool, zodSchema } from 'ai';
import { z } from 'zod';
import { ACTION_NAMES } from '../../../core/actions/action-arguments.ts';
import { FoldError } from '../../../core/fold-error.ts';
import type { FoldRuntime } from '../../../core/fold-runtime.ts';
import { BRIEF_MAX_CHARS } from '../../../core/folds/briefs.ts';

/**
 * The shape of the agent's tool arguments, as the model is told it. The zod schema is the
 * source of the JSON schema only; validation is the engine's own (`parseAction`), so every
 * refusal the model sees is one FoldError message that names the problem.
 */
export const foldContextInputSchema = z.object({
  action: z
    .enum(ACTION_NAMES)
    .describe('what to do: status, peek, search, brief, expand, refold, pin, unpin, reboundary or unmark'),
  id: z.string().optional().describe('a fold or mark id (peek, brief, expand, refold, unmark)'),
  ids: z.array(z.string()).optional().describe('entry, mark or fold ids (pin, unpin, reboundary)'),
  text: z.string().optional().describe(`brief: your own words for a pending fold, at most ${BRIEF_MAX_CHARS} chars`),
  brief: z.string().optional().describe('reboundary: optional brief for the new span'),
  detail: z.enum(['summary', 'tree']).optional().describe('status: "tree" lists every fold with depth and parent'),
  offset: z
    .number()
    .int()
    .optional()
    .describe(
      'peek: UTF-8 byte offset into the peek text, headers included (as the continue-with line of a peek or the peekOffset of a search hit gives it)',
    ),
  bytes: z.number().int().optional().describe('peek: how many bytes to read'),
  ephemeral: z
    .boolean()
    .optional()
    .describe('peek: when true (default) the result shrinks to a one-line stub after your next reply'),
  pattern: z.string().optional().describe('search: text to find in the exact source of every fold'),
  regex: z.boolean().optional().describe('search: treat pattern as a regular expression (linear-time subset)'),
  ignoreCase: z.boolean().optional().describe('search: match regardless of case'),
  within: z.string().optional().describe('search: only this fold and the folds inside it'),
  page: z.number().int().optional().describe('search: page of results, from 1'),
  limit: z.number().int().optional().describe('search: results per page (default 10, at most 50)'),
});

export type FoldContextInput = z.infer<typeof foldContextInputSchema>;

const DESCRIPTION = [
  'Manage your context window. Old spans are folded into short briefs; their exact text stays stored.',
  "status: budget, occupancy, pending marks and folds. peek {id}: read a fold's exact source.",
  "search {pattern}: find exact text (regex:true for a regular expression) in every fold's stored source; hits name the peek that shows them.",
  'expand {id}: restore a fold in place; refold {id}: collapse it again. brief {id,text}: your words for a pending fold.',
  'pin/unpin {ids}: keep entries raw. reboundary {ids}: re-cut a span. unmark {id}: withdraw a pending mark.',
].join('\n');

/**
 * The fold tool (B4's nine actions and search: ten in all) as an AI SDK tool. A refusal is thrown
 * as the engine's FoldError;
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
      try {
        const answer = await runtime.act(input, { origin: 'agent', toolCallId });
        return answer.text;
      } catch (error) {
        throw FoldError.isInstance(error) ? asModelRefusal(error) : error;
      }
    },
  });
}

/**
 * ai@6 shows the model a thrown tool error's `message`; ai@7 shows `toString()`, which would
 * prefix "FoldError: ". The refusal keeps its identity (hosts still branch on `code`) and reads
 * the same under both: the code and the reason.
 */
function asModelRefusal(error: FoldError): FoldError {
  Object.defineProperty(error, 'toString', { value: () => error.message, enumerable: false });
  return error;
}
