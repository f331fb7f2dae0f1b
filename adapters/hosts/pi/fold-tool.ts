import type { ToolDefinition } from '@mariozechner/pi-coding-agent';
import { ACTION_NAMES } from '../../../core/actions/action-arguments.ts';
import { BRIEF_MAX_CHARS } from '../../../core/folds/briefs.ts';
import { StringEnum, Type } from './host-api.ts';
import { PI_TOOL_NAME, type PiSessionRegistry } from './session-registry.ts';

/**
 * The parameters as the model is told them. Pi checks the types; the engine's own parser
 * then checks everything else (which fields an action takes, ranges, lengths), so a bad
 * call gets one message that names the problem and changes nothing.
 */
export const foldToolParameters = Type.Object({
  action: StringEnum(ACTION_NAMES, {
    description: 'status, peek, search, brief, expand, refold, pin, unpin, reboundary or unmark',
  }),
  id: Type.Optional(Type.String({ description: 'a fold or mark id (peek, brief, expand, refold, unmark)' })),
  ids: Type.Optional(Type.Array(Type.String(), { description: 'entry, mark or fold ids (pin, unpin, reboundary)' })),
  text: Type.Optional(
    Type.String({ description: `brief: your own words for a pending fold, at most ${BRIEF_MAX_CHARS} chars` }),
  ),
  brief: Type.Optional(Type.String({ description: 'reboundary: optional brief for the new span' })),
  detail: Type.Optional(
    StringEnum(['summary', 'tree'] as const, { description: 'status: "tree" lists every fold with depth and parent' }),
  ),
  offset: Type.Optional(
    Type.Integer({
      description:
        'peek: UTF-8 byte offset into the peek text, headers included (as the continue-with line of a peek or the peekOffset of a search hit gives it)',
    }),
  ),
  bytes: Type.Optional(Type.Integer({ description: 'peek: how many bytes to read' })),
  ephemeral: Type.Optional(
    Type.Boolean({ description: 'peek: true (default) shrinks the result to a one-line stub after your next reply' }),
  ),
  pattern: Type.Optional(Type.String({ description: 'search: text to find in the exact source of every fold' })),
  regex: Type.Optional(
    Type.Boolean({ description: 'search: treat pattern as a regular expression (linear-time subset)' }),
  ),
  ignoreCase: Type.Optional(Type.Boolean({ description: 'search: match regardless of case' })),
  within: Type.Optional(Type.String({ description: 'search: only this fold and the folds inside it' })),
  page: Type.Optional(Type.Integer({ description: 'search: page of results, from 1' })),
  limit: Type.Optional(Type.Integer({ description: 'search: results per page (default 10, at most 50)' })),
});

const DESCRIPTION = [
  'Manage your context window. Older spans of this session are folded into short briefs; their exact text stays stored and can be read back byte for byte.',
  "status: budget, occupancy, pending marks, folds, pins. peek {id}: read one level of a fold's exact source (bounded; offset/bytes for slices).",
  "search {pattern}: find exact text (or a regex with regex:true) in every fold's stored source; answers fold ids, offsets and excerpts, paged.",
  'brief {id, text}: your own words for a pending fold before it commits. expand {id}: restore a fold in place; refold {id}: collapse it again.',
  'pin/unpin {ids}: keep entries raw through every fold. reboundary {ids}: re-cut a span into one pending fold. unmark {id}: withdraw a pending mark.',
].join('\n');

const GUIDELINES = [
  `When pi-fold lists pending folds without a brief, call ${PI_TOOL_NAME} with action "brief" for each, naming what you will need later: decisions, file paths, numbers, open questions.`,
  `To find where something was said in folded material, call ${PI_TOOL_NAME} "search" with the exact text; each hit names the peek that shows it.`,
  `To consult folded material, call ${PI_TOOL_NAME} "peek" with the fold id shown in its placeholder; the peek shrinks to a stub after your next reply, so note what you need. Use "expand" only when you must work with the material in place for a while.`,
  `Pin with ${PI_TOOL_NAME} "pin" the entries you must keep verbatim (the user's requirements, a spec); unpin them when done. Pins free nothing, so pin sparingly.`,
  'There is no commit verb: folds land on their own when the window fills, and every fold can be read back exactly.',
];

/**
 * The fold tool (B4's nine actions and search: ten in all) as a Pi tool. A refusal is thrown, so Pi
 * reports it as an error result.
 */
export function createFoldTool(
  registry: PiSessionRegistry,
): ToolDefinition<typeof foldToolParameters, Record<string, unknown>> {
  return {
    name: PI_TOOL_NAME,
    label: 'Fold context',
    description: DESCRIPTION,
    promptSnippet: `${PI_TOOL_NAME}: read (peek/expand), brief, pin and curate folded older context; exact source always recoverable`,
    promptGuidelines: GUIDELINES,
    parameters: foldToolParameters,
    async execute(toolCallId, params, _signal, _onUpdate, ctx) {
      const folding = await registry.forSession(ctx.sessionManager);
      const answer = await folding.runtime.act(params, { origin: 'agent', toolCallId });
      return { content: [{ type: 'text', text: answer.text }], details: { action: answer.action, ...answer.data } };
    },
  };
}
