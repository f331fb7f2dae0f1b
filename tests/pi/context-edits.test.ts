import { readFileSync } from 'node:fs';
import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import {
  blobText,
  openScriptedHostAlone,
  PI_VERSION,
  type RecordedRequest,
  type ScriptedReply,
  settle,
} from '../../testing/pi/scripted-pi.ts';
import { type BoundaryDraft, type EditContent, hasContextEdits, onTurnEndBoundary } from './support/turn-end-edits.ts';

/**
 * What Pi itself does with `context_edit` entries an extension appends at `turn_end`
 * (docs/pi-context-edits.md): the facts the edit-based landing path would stand on, checked
 * on a real AgentSession with the scripted offline provider, no pi-fold loaded.
 */

const SECRET = 'SECRET-ONE';
const FOLDED_RESULT = 'blob 1 folded: peek fold f_demo for the exact bytes';
const BLOB_ONE = blobText(1, 4_000);
const SUMMARY = 'SUMMARY OF THE EDITED CONTEXT';

const skipReason = hasContextEdits(PI_VERSION)
  ? ''
  : ` (skipped: Pi ${PI_VERSION} has no context_edit entries or actionable turn_end; they arrived in 0.87.0)`;

type Replacements = (ids: { userId: string; assistantId: string; resultId: string }) => BoundaryDraft[];

interface Probe {
  /** What each `context` handler call was handed, as JSON per message. */
  readonly contextEvents: string[][];
  /** Ids of the entries the edits targeted. */
  readonly targets: { userId?: string; assistantId?: string; resultId?: string };
}

/**
 * A tiny extension: at the `turn_end` that carries the result of `fetch_blob` seed 1, it
 * proposes the drafts `replacements` builds; its `context` handler only records what it sees.
 */
function editingExtension(probe: Probe, replacements: Replacements): (pi: ExtensionAPI) => void {
  return (pi) => {
    let done = false;
    onTurnEndBoundary(pi, (event, ctx) => {
      if (done || event.toolResultEntryIds.length !== 1) return undefined;
      done = true;
      const user = ctx.sessionManager
        .getBranch()
        .find((entry) => entry.type === 'message' && JSON.stringify(entry.message).includes(SECRET));
      if (user === undefined) throw new Error('the prompt entry is not on the branch');
      const ids = { userId: user.id, assistantId: event.messageEntryId, resultId: event.toolResultEntryIds[0]! };
      Object.assign(probe.targets, ids);
      return { entries: [...event.entries, ...replacements(ids)] };
    });
    pi.on('context', (event) => {
      probe.contextEvents.push(event.messages.map((message) => JSON.stringify(message)));
    });
  };
}

/** Replies in order for the agent's requests; a summarisation request is answered with SUMMARY. */
function queuedScript(queue: ScriptedReply[], summaries: RecordedRequest[]) {
  return (request: RecordedRequest): ScriptedReply => {
    if (request.serialized.some((line) => line.includes('<conversation>'))) {
      summaries.push(request);
      return { kind: 'text', text: SUMMARY };
    }
    return queue.shift() ?? { kind: 'text', text: 'done' };
  };
}

const fetch = (seed: number, size: number): ScriptedReply => ({
  kind: 'tools',
  calls: [{ name: 'fetch_blob', arguments: { seed, size } }],
});

async function openEditedSession(replacements: Replacements, queue: ScriptedReply[]) {
  const probe: Probe = { contextEvents: [], targets: {} };
  const summaries: RecordedRequest[] = [];
  const pi = await openScriptedHostAlone({
    script: queuedScript(queue, summaries),
    otherExtensions: { before: [editingExtension(probe, replacements)] },
  });
  return { pi, probe, summaries };
}

const omitPromptReplaceResult: Replacements = ({ userId, resultId }) => [
  { type: 'context_edit', targetId: userId, replacement: null },
  { type: 'context_edit', targetId: resultId, replacement: { content: FOLDED_RESULT } },
];

/** Pi ≥ 0.87's own projection of the active branch (the root's 0.73 types do not declare it). */
function projectedText(manager: object): string {
  const projection = (manager as { buildSessionProjection(): { messages: unknown[] } }).buildSessionProjection();
  return JSON.stringify(projection.messages);
}

function sessionFileLines(file: string | undefined): Record<string, unknown>[] {
  if (file === undefined) throw new Error('the session is not persisted');
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe.skipIf(!hasContextEdits(PI_VERSION))(
  `pi ≥ 0.87: context_edit entries appended at turn_end${skipReason}`,
  () => {
    it('the next request carries the edited context, the context event is handed that projection, the file keeps the raw entries', async () => {
      const { pi, probe } = await openEditedSession(omitPromptReplaceResult, [
        fetch(1, 4_000),
        { kind: 'text', text: 'first done' },
      ]);
      await pi.session.prompt(`Remember ${SECRET}, then read blob 1.`);
      await settle(pi.session);
      expect(pi.errors).toEqual([]);
      const [before, after] = pi.requests;
      // The request before the edit had both; the one after the edit has neither.
      expect(before!.serialized.join('\n')).toContain(SECRET);
      expect(after!.serialized.join('\n')).not.toContain(SECRET);
      expect(after!.serialized.join('\n')).not.toContain(BLOB_ONE);
      const result = after!.messages.find((message) => message.role === 'toolResult');
      expect(result?.content).toEqual([{ type: 'text', text: FOLDED_RESULT }]);
      // Role and metadata stay: the stub still answers the call.
      const call = after!.messages.find((message) => message.role === 'assistant');
      expect(call?.role === 'assistant' && call.content.find((block) => block.type === 'toolCall')).toMatchObject({
        id: result?.role === 'toolResult' ? result.toolCallId : 'missing',
      });
      // The `context` event is a copy of Pi's projection, not of the raw branch.
      const handed = probe.contextEvents[1]!.join('\n');
      expect(handed).not.toContain(SECRET);
      expect(handed).toContain(FOLDED_RESULT);
      // The session file keeps the raw messages and appends the edits after the result.
      const lines = sessionFileLines(pi.sessionManager.getSessionFile());
      const raw = lines.map((line) => JSON.stringify(line));
      expect(raw.some((line) => line.includes(SECRET) && line.includes('"type":"message"'))).toBe(true);
      expect(raw.some((line) => line.includes(BLOB_ONE))).toBe(true);
      const edits = lines.filter((line) => line.type === 'context_edit');
      expect(edits.map((edit) => [edit.targetId, edit.replacement])).toEqual([
        [probe.targets.userId, null],
        [probe.targets.resultId, { content: [{ type: 'text', text: FOLDED_RESULT }] }],
      ]);
      const resultIndex = lines.findIndex((line) => line.id === probe.targets.resultId);
      expect(lines[resultIndex + 1]?.type).toBe('context_edit');
      expect(lines[resultIndex + 1]?.parentId).toBe(probe.targets.resultId);
    });

    it("replaces an assistant's tool-call blocks, not only omits them: the provider sees the replaced call", async () => {
      const stubbedCall: Replacements = ({ assistantId }) => [
        {
          type: 'context_edit',
          targetId: assistantId,
          replacement: {
            content: [
              { type: 'text', text: 'arguments stubbed' },
              { type: 'toolCall', id: 'call_1', name: 'fetch_blob', arguments: { seed: 1, size: 1 } },
            ] satisfies EditContent,
          },
        },
      ];
      const { pi } = await openEditedSession(stubbedCall, [fetch(1, 4_000), { kind: 'text', text: 'first done' }]);
      await pi.session.prompt(`Remember ${SECRET}, then read blob 1.`);
      await settle(pi.session);
      expect(pi.errors).toEqual([]);
      const assistant = pi.requests[1]!.messages.find((message) => message.role === 'assistant');
      expect(assistant?.content).toEqual([
        { type: 'text', text: 'arguments stubbed' },
        { type: 'toolCall', id: 'call_1', name: 'fetch_blob', arguments: { seed: 1, size: 1 } },
      ]);
      // The original call's arguments stay in the session file.
      const raw = sessionFileLines(pi.sessionManager.getSessionFile()).map((line) => JSON.stringify(line));
      expect(raw.some((line) => line.includes('"size":4000') && line.includes('"toolCall"'))).toBe(true);
    });

    it('/compact summarises the edited context; /tree back past the edits shows the original, forward again the edits', async () => {
      const { pi, probe, summaries } = await openEditedSession(omitPromptReplaceResult, [
        fetch(1, 4_000),
        { kind: 'text', text: 'first done' },
        fetch(11, 30_000),
        fetch(12, 30_000),
        fetch(13, 30_000),
        fetch(14, 30_000),
        { kind: 'text', text: 'second done' },
        { kind: 'text', text: 'third done' },
      ]);
      await pi.session.prompt(`Remember ${SECRET}, then read blob 1.`);
      await settle(pi.session);
      await pi.session.prompt('Now read four large blobs.');
      await settle(pi.session);
      await pi.session.compact();
      await settle(pi.session);
      const compactedLeaf = pi.sessionManager.getLeafId()!;
      expect(pi.errors).toEqual([]);
      // The summariser was handed the projection: the replacement, never the omitted or replaced originals.
      const summarised = summaries.map((request) => request.serialized.join('\n')).join('\n');
      expect(summaries.length).toBeGreaterThan(0);
      expect(summarised).toContain(FOLDED_RESULT);
      expect(summarised).not.toContain(SECRET);
      expect(summarised).not.toContain(BLOB_ONE);
      // Back to the result entry, before the edits: Pi's projection is the original again.
      await pi.session.navigateTree(probe.targets.resultId!, { summarize: false });
      const original = projectedText(pi.sessionManager);
      expect(original).toContain(SECRET);
      expect(original).toContain(BLOB_ONE);
      expect(original).not.toContain(FOLDED_RESULT);
      const requestsBefore = pi.requests.length;
      await pi.session.prompt('Continue from here.');
      await settle(pi.session);
      expect(pi.requests[requestsBefore]!.serialized.join('\n')).toContain(SECRET);
      // Forward again to the compacted, edited leaf: the summary and the edits are back.
      await pi.session.navigateTree(compactedLeaf, { summarize: false });
      const edited = projectedText(pi.sessionManager);
      expect(edited).toContain(SUMMARY);
      expect(edited).not.toContain(SECRET);
      expect(edited).not.toContain(BLOB_ONE);
    });
  },
);
