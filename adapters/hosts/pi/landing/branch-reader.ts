import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import { entriesAppendedSince } from '../appended-entries.ts';
import type { IdentifiedMessage } from '../message-entries.ts';
import {
  type BranchContext,
  type BranchItem,
  type ContextEditEntry,
  isContextEdit,
  isEditable,
  readBranchContext,
  stateOf,
  unedited,
} from './branch-context.ts';
import {
  type EditingSessionManager,
  INSERT_MESSAGE_TYPE,
  LANDING_MARKER_TYPE,
  type LandingMarker,
} from './editing-session.ts';

/**
 * Reads the branch for the edit landing once per request at the cost of what was appended.
 * Between two requests the branch almost always just grows: new messages, and pi-fold's own
 * edits and markers. Those are applied to the previous read. Anything else (a `/tree` jump,
 * a compaction or branch summary, another extension's edit, a first read) reads Pi's whole
 * projection again (`readBranchContext`), so the result is always what a full read gives.
 * A read's arrays are the reader's own and change at the next read: a request uses them
 * before its landing reads what it appended (which the next request's read then starts
 * from), and Pi never runs two `context` events alongside each other.
 */
export class BranchReader {
  private leafId: string | null | undefined;
  private items: BranchItem[] = [];
  private rawMessages: IdentifiedMessage[] = [];
  private projected: AgentMessage[] = [];
  private systemMessages = 0;
  /** Item positions of each entry that gives model context. */
  private positions = new Map<string, number[]>();

  read(sessionManager: EditingSessionManager, shown: (message: AgentMessage) => boolean): BranchContext {
    const leafId = sessionManager.getLeafId();
    const appended = entriesAppendedSince(sessionManager, leafId, this.leafId);
    const unchangedPrefix = this.rawMessages.length;
    if (appended === undefined || !this.apply(appended, shown)) {
      this.reset(readBranchContext(sessionManager, shown));
      this.leafId = leafId;
      return this.context(0);
    }
    this.leafId = leafId;
    return this.context(unchangedPrefix);
  }

  private context(unchangedPrefix: number): BranchContext {
    return {
      items: this.items,
      rawMessages: this.rawMessages,
      projected: this.projected,
      unchangedPrefix,
      systemMessages: this.systemMessages,
    };
  }

  private reset(context: BranchContext): void {
    this.items = [...context.items];
    this.rawMessages = [...context.rawMessages];
    this.projected = [...context.projected];
    this.systemMessages = context.systemMessages;
    this.positions = new Map();
    this.items.forEach((item, position) => {
      this.remember(item.entryId, position);
    });
  }

  private remember(entryId: string, position: number): void {
    const known = this.positions.get(entryId);
    if (known === undefined) this.positions.set(entryId, [position]);
    else known.push(position);
  }

  /** Applies appended entries to the last read; false when one needs a full read. */
  private apply(appended: readonly SessionEntry[], shown: (message: AgentMessage) => boolean): boolean {
    const ours = new Set<string>();
    for (const entry of appended) {
      const type = (entry as { type: string }).type;
      if (type === 'compaction' || type === 'branch_summary') return false;
      if (entry.type === 'custom' && entry.customType === LANDING_MARKER_TYPE)
        for (const id of (entry.data as Partial<LandingMarker> | undefined)?.editIds ?? []) ours.add(id);
    }
    // Another extension's edit may change what the engine is given: a full read takes it in.
    for (const entry of appended) if (isContextEdit(entry) && !ours.has(entry.id)) return false;
    let edited = false;
    for (const entry of appended) {
      if (isContextEdit(entry)) {
        this.applyEdit(entry as unknown as ContextEditEntry);
        edited = true;
      } else this.appendEntry(entry, shown);
    }
    if (edited) this.projected = this.items.filter((item) => item.state.kind !== 'omitted').map(shownForm);
    return true;
  }

  private applyEdit(edit: ContextEditEntry): void {
    for (const position of this.positions.get(edit.targetId) ?? []) {
      const item = this.items[position]!;
      this.items[position] = { ...item, state: stateOf(edit) };
    }
  }

  private appendEntry(entry: SessionEntry, shown: (message: AgentMessage) => boolean): void {
    const insert = entry.type === 'custom_message' && entry.customType === INSERT_MESSAGE_TYPE;
    for (const message of unedited(entry)) {
      if (message.role === ('system' as AgentMessage['role'])) {
        this.systemMessages += 1;
        continue;
      }
      if (!shown(message)) continue;
      this.remember(entry.id, this.items.length);
      this.items.push({
        entryId: entry.id,
        raw: message,
        insert,
        userLike: message.role === 'user' || message.role === 'custom',
        editable: isEditable(entry),
        state: { kind: 'raw' },
        systemsBefore: this.systemMessages,
      });
      if (!insert) this.rawMessages.push({ entryId: entry.id, message });
      this.projected.push(message);
    }
  }
}

/** An item as Pi's projection shows it: its raw message, or that message with pi-fold's replacement. */
function shownForm(item: BranchItem): AgentMessage {
  if (item.state.kind !== 'replaced') return item.raw;
  return { ...item.raw, content: item.state.content } as AgentMessage;
}
