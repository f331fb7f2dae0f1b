import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import type { IdentifiedMessage } from '../message-entries.ts';
import {
  type EditContent,
  type EditingSessionManager,
  INSERT_MESSAGE_TYPE,
  LANDING_MARKER_TYPE,
  type LandingMarker,
} from './editing-session.ts';

/** Where one branch entry stands in Pi's projection as pi-fold left it. */
export type EditState =
  /** No edit of pi-fold's: the entry shows as Pi projects it (raw, or as another extension edited it). */
  | { readonly kind: 'raw' }
  | { readonly kind: 'omitted' }
  | { readonly kind: 'replaced'; readonly content: EditContent };

/** One entry of the projected branch that gives model context. */
export interface BranchItem {
  readonly entryId: string;
  /** What the engine reads for this entry: the message as it stands without pi-fold's edits. */
  readonly raw: AgentMessage;
  /** A notice or receipt pi-fold landed earlier; never handed to the engine, which renders its own. */
  readonly insert: boolean;
  /** Whether a placeholder's text can stand in its place (a user or custom message keeps the user role). */
  readonly userLike: boolean;
  /** Whether Pi lets an edit target it. */
  readonly editable: boolean;
  readonly state: EditState;
  /**
   * How many of Pi's system messages the branch shows before this item. Pi puts them back in
   * place after the `context` handlers, so a text must not be carried across one.
   */
  readonly systemsBefore: number;
}

/** The branch as the next request would carry it, read once per request. */
export interface BranchContext {
  readonly items: readonly BranchItem[];
  /** The messages the engine folds: every item but pi-fold's inserts, as Pi has them without pi-fold's edits. */
  readonly rawMessages: readonly IdentifiedMessage[];
  /** The messages Pi's projection gives, as the `context` event hands them over; item by item where an item shows. */
  readonly projected: readonly AgentMessage[];
  /** How many leading `rawMessages` are the previous read's, unchanged (0 when the branch was read afresh). */
  readonly unchangedPrefix: number;
  /** How many of Pi's system messages the branch shows in all. */
  readonly systemMessages: number;
}

/**
 * Reads Pi's projection of the active branch and takes pi-fold's own edits back out of it
 * (docs/pi.md, "Landing as context edits"). Edits are entries on the branch, so what this
 * returns follows `/tree`, forks and resumes with no state of pi-fold's own. Edits that no
 * landing marker lists (another extension's, Pi's overflow omissions) stay applied: they
 * are part of the transcript the engine is given. `shown` drops messages the engine never
 * sees (pi-fold's own overflow-recovery summary).
 */
export function readBranchContext(
  sessionManager: EditingSessionManager,
  shown: (message: AgentMessage) => boolean,
): BranchContext {
  const projection = sessionManager.buildSessionProjection().entries;
  const ours = new Set<string>();
  const latestEdit = new Map<string, ContextEditEntry>();
  for (const { sourceEntry } of projection) {
    if (isContextEdit(sourceEntry)) {
      const edit = sourceEntry as unknown as ContextEditEntry;
      latestEdit.set(edit.targetId, edit);
    } else if (sourceEntry.type === 'custom' && sourceEntry.customType === LANDING_MARKER_TYPE)
      for (const id of (sourceEntry.data as Partial<LandingMarker> | undefined)?.editIds ?? []) ours.add(id);
  }
  const items: BranchItem[] = [];
  const rawMessages: IdentifiedMessage[] = [];
  const projected: AgentMessage[] = [];
  let systems = 0;
  for (const { sourceEntry, messages } of projection) {
    for (const message of messages as AgentMessage[])
      if (message.role !== ('system' as AgentMessage['role']) && shown(message)) projected.push(message);
    const edit = latestEdit.get(sourceEntry.id);
    const ourEdit = edit !== undefined && ours.has(edit.id) ? edit : undefined;
    const raw = ourEdit === undefined ? (messages as AgentMessage[]) : unedited(sourceEntry);
    const insert = sourceEntry.type === 'custom_message' && sourceEntry.customType === INSERT_MESSAGE_TYPE;
    for (const message of raw) {
      // System messages never reach a `context` handler (Pi puts them back after it), nor the engine.
      if (message.role === ('system' as AgentMessage['role'])) {
        systems += 1;
        continue;
      }
      if (!shown(message)) continue;
      items.push({
        entryId: sourceEntry.id,
        raw: message,
        insert,
        userLike: message.role === 'user' || message.role === 'custom',
        editable: isEditable(sourceEntry),
        state: stateOf(ourEdit),
        systemsBefore: systems,
      });
      if (!insert) rawMessages.push({ entryId: sourceEntry.id, message });
    }
  }
  return { items, rawMessages, projected, unchangedPrefix: 0, systemMessages: systems };
}

export function stateOf(edit: ContextEditEntry | undefined): EditState {
  if (edit === undefined) return { kind: 'raw' };
  return edit.replacement === null ? { kind: 'omitted' } : { kind: 'replaced', content: edit.replacement.content };
}

/** Pi ≥ 0.87's edit entry; the adapter compiles against Pi 0.73's types, which do not know it. */
export interface ContextEditEntry {
  readonly type: 'context_edit';
  readonly id: string;
  readonly targetId: string;
  readonly replacement: { readonly content: EditContent } | null;
}

export function isContextEdit(entry: SessionEntry): boolean {
  return (entry as { type: string }).type === 'context_edit';
}

/** The messages an entry gives without any edit, as Pi builds them (`sessionEntryToContextMessages`). */
export function unedited(entry: SessionEntry): AgentMessage[] {
  if (entry.type === 'message') {
    const message = entry.message as AgentMessage & { content?: unknown };
    return [message.content == null ? ({ ...message, content: [] } as AgentMessage) : message];
  }
  if (entry.type === 'custom_message') {
    return [
      {
        role: 'custom',
        customType: entry.customType,
        content: entry.content ?? [],
        display: entry.display,
        details: entry.details,
        timestamp: new Date(entry.timestamp).getTime(),
      } as AgentMessage,
    ];
  }
  return [];
}

/** The entries Pi's `appendContextEdit` accepts as targets. */
export function isEditable(entry: SessionEntry): boolean {
  if (entry.type === 'custom_message') return true;
  if (entry.type !== 'message') return false;
  const role = entry.message.role;
  return role === 'user' || role === 'assistant' || role === 'toolResult';
}
