import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { EditPlan } from './edit-plan.ts';
import {
  type EditingSessionManager,
  INSERT_MESSAGE_TYPE,
  LANDING_MARKER_TYPE,
  type LandingMarker,
} from './editing-session.ts';
import { sameJson } from './same-json.ts';

/** What one landing appended to the session. */
export interface LandedEdits {
  readonly edits: number;
  readonly inserts: number;
}

/**
 * Appends a plan to the session: its edits, its tail texts as hidden custom messages, then one
 * marker that lists the edit entries, so a later read of the branch (after a restart, a
 * `/tree` jump or a fork) can tell pi-fold's edits from anyone else's. The marker is written
 * even when Pi refuses an edit part-way, so no edit of ours is ever taken for a foreign one.
 */
export function landEdits(
  sessionManager: EditingSessionManager,
  plan: EditPlan,
  request: number,
  folds: readonly string[],
): LandedEdits {
  const editIds: string[] = [];
  try {
    for (const edit of plan.edits)
      editIds.push(
        sessionManager.appendContextEdit(
          edit.targetId,
          edit.replacement === null ? null : { content: edit.replacement.content },
        ),
      );
    for (const text of plan.tailTexts)
      sessionManager.appendCustomMessageEntry(INSERT_MESSAGE_TYPE, [{ type: 'text', text }], false);
  } finally {
    if (editIds.length > 0) {
      const marker: LandingMarker = { editIds, request, folds };
      sessionManager.appendCustomEntry(LANDING_MARKER_TYPE, marker);
    }
  }
  return { edits: editIds.length, inserts: plan.tailTexts.length };
}

/**
 * Whether the messages Pi is about to send are the window, message for message: the same
 * model role (a custom message reaches the model as a user message), call id and content.
 */
export function sameMessages(sent: readonly AgentMessage[], window: readonly AgentMessage[]): boolean {
  if (sent.length !== window.length) return false;
  for (let index = 0; index < sent.length; index += 1) if (!sameMessage(sent[index]!, window[index]!)) return false;
  return true;
}

/**
 * One message of `sameMessages`: a user-role text's timestamp is not compared (a landed text
 * carries its entry's), and a window text an assistant entry carries (`edit-plan.ts`) is the
 * same text as assistant text.
 */
export function sameMessage(sent: AgentMessage, wanted: AgentMessage): boolean {
  const a = sent as AgentMessage & { content?: unknown; toolCallId?: string };
  const b = wanted as AgentMessage & { content?: unknown; toolCallId?: string };
  const carried = a.role === 'assistant' && modelRole(b) === 'user';
  if ((modelRole(a) !== modelRole(b) && !carried) || a.toolCallId !== b.toolCallId) return false;
  if (a.role === b.role && a.role !== 'user' && a.role !== 'custom' && a.timestamp !== b.timestamp) return false;
  return sameJson(userContent(a), userContent(b));
}

function modelRole(message: AgentMessage): string {
  return message.role === 'custom' ? 'user' : message.role;
}

/** A user-role text as blocks, the form Pi sends a string in. */
function userContent(message: AgentMessage & { content?: unknown }): unknown {
  const content = message.content;
  if ((message.role === 'user' || message.role === 'custom') && typeof content === 'string')
    return [{ type: 'text', text: content }];
  return content;
}
