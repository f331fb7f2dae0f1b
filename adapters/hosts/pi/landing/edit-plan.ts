import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { ProjectedMessage } from '../../../../ports/projection-sink.port.ts';
import type { BranchItem, EditState } from './branch-context.ts';
import type { EditContent } from './editing-session.ts';
import { sameJson } from './same-json.ts';

/** One edit to append: the entry it targets, and its content or null to omit it. */
export interface PlannedEdit {
  readonly targetId: string;
  readonly replacement: { readonly content: EditContent } | null;
}

/** What makes Pi's projection the engine's window, as session entries. */
export interface EditPlan {
  readonly edits: readonly PlannedEdit[];
  /** Notices, receipts or placeholders after the branch's last entry: appended as custom messages. */
  readonly tailTexts: readonly string[];
  /**
   * Whether Pi's projection equals the window once the plan has landed. When it does not (a
   * placeholder with no user entry to carry it, an entry Pi refuses to edit), the `context`
   * hook sends the engine's window itself, as on Pi 0.73, and the edits still shorten what Pi
   * copies and checks.
   */
  readonly exact: boolean;
}

/**
 * The edits that turn the branch into the engine's window (docs/pi.md, "Landing as context
 * edits"). `window` is the engine's projection and `desired` the same as Pi messages
 * (`toPiMessages`), index for index.
 *
 * - An entry the window shows raw keeps (or gets back) its own content.
 * - A stub or a spilled entry replaces its target's content; the role, the call id and the
 *   pairing stay (docs/behaviour.md I3).
 * - Entries the window leaves out are omitted. A placeholder, notice or receipt between two
 *   shown entries is carried by a user-role entry of the omitted gap there (a replacement
 *   keeps the target's role and place); after the last entry it becomes a custom message.
 */
export function planEdits(
  items: readonly BranchItem[],
  window: readonly ProjectedMessage[],
  desired: readonly AgentMessage[],
): EditPlan {
  const wanted: (EditState | undefined)[] = new Array(items.length);
  let exact = true;
  let cursor = 0;
  let pending: string[] = [];
  window.forEach((message, index) => {
    if (message.kind === 'synthetic') {
      pending.push(message.text);
      return;
    }
    const position = findEntry(items, cursor, message.entryId);
    if (position === undefined) {
      exact = false;
      return;
    }
    if (carryGap(items, wanted, cursor, position, pending) < pending.length) exact = false;
    pending = [];
    const item = items[position]!;
    if (message.kind === 'entry') wanted[position] = { kind: 'raw' };
    else if (message.kind === 'stub') {
      wanted[position] = { kind: 'replaced', content: [{ type: 'text', text: message.text }] };
      // A replacement keeps the result's error flag; the window's stub never has one.
      if ((item.raw as { isError?: boolean }).isError === true) exact = false;
    } else wanted[position] = { kind: 'replaced', content: (desired[index] as { content: EditContent }).content };
    cursor = position + 1;
  });
  // After the last shown entry, a text with no carrier is appended: it lands in its place.
  const tailTexts = pending.slice(carryGap(items, wanted, cursor, items.length, pending));
  const edits: PlannedEdit[] = [];
  items.forEach((item, position) => {
    const target = wanted[position] ?? { kind: 'raw' };
    if (sameState(item, item.state, target)) return;
    if (!item.editable) {
      exact = false;
      return;
    }
    edits.push({ targetId: item.entryId, replacement: replacementFor(item, target) });
  });
  return { edits, tailTexts, exact };
}

/** The item of `entryId` at or after `from` (the engine names an entry another extension rewrote `id~digest`). */
function findEntry(items: readonly BranchItem[], from: number, entryId: string): number | undefined {
  const id = entryId.split('~')[0];
  for (let position = from; position < items.length; position += 1) {
    const item = items[position]!;
    if (!item.insert && item.entryId === id) return position;
  }
  return undefined;
}

/**
 * Items `from`..`to` are not shown: the texts of `pending` go, in order, to carriers among
 * them, and every other one is omitted. Returns how many texts found a carrier.
 */
function carryGap(
  items: readonly BranchItem[],
  wanted: (EditState | undefined)[],
  from: number,
  to: number,
  pending: readonly string[],
): number {
  const carriers = pending.length === 0 ? new Set<number>() : carriersIn(items, from, to, pending.length);
  let next = 0;
  for (let position = from; position < to; position += 1) {
    if (next < pending.length && carriers.has(position)) {
      wanted[position] = { kind: 'replaced', content: [{ type: 'text', text: pending[next]! }] };
      next += 1;
    } else wanted[position] = { kind: 'omitted' };
  }
  return next;
}

/**
 * The entries of a gap that carry its texts. User-role entries first: a replacement keeps the
 * target's role, so a text they carry reaches the model as the user message it is in the
 * window. A gap with fewer of them than texts (a long tool loop under one prompt folds into
 * many chapters with no user message among them) also lets assistant entries carry texts, as
 * assistant text: Pi's projection then still is the window, in place, where the hook would
 * otherwise send it on every request. An assistant entry Pi's providers drop (a failed or
 * aborted reply) carries nothing, and a gap that holds one of Pi's system messages keeps to
 * user entries: Pi puts the system message back in its place, and a text carried on the other
 * side of it would move relative to it.
 */
function carriersIn(items: readonly BranchItem[], from: number, to: number, count: number): Set<number> {
  const userLike: number[] = [];
  const any: number[] = [];
  for (let position = from; position < to; position += 1) {
    const item = items[position]!;
    if (!item.editable) continue;
    if (item.userLike) {
      userLike.push(position);
      any.push(position);
    } else if (carriesAsAssistant(item)) any.push(position);
  }
  const holdsSystemMessage = to > from && items[from]!.systemsBefore !== items[to - 1]!.systemsBefore;
  return new Set(userLike.length >= count || holdsSystemMessage ? userLike : any);
}

function carriesAsAssistant(item: BranchItem): boolean {
  if (item.raw.role !== 'assistant') return false;
  const stopReason = (item.raw as { stopReason?: string }).stopReason;
  return stopReason !== 'error' && stopReason !== 'aborted';
}

/** Whether an item already stands as wanted (a replacement equal to the raw content counts as raw). */
function sameState(item: BranchItem, current: EditState, target: EditState): boolean {
  const currentContent =
    current.kind === 'raw' ? rawContent(item) : current.kind === 'replaced' ? current.content : null;
  const targetContent = target.kind === 'raw' ? rawContent(item) : target.kind === 'replaced' ? target.content : null;
  if (currentContent === null || targetContent === null) return currentContent === targetContent;
  return sameJson(currentContent, targetContent);
}

function replacementFor(item: BranchItem, target: EditState): PlannedEdit['replacement'] {
  if (target.kind === 'omitted') return null;
  return { content: target.kind === 'raw' ? rawContent(item) : target.content };
}

function rawContent(item: BranchItem): EditContent {
  return ((item.raw as { content?: EditContent }).content ?? []) as EditContent;
}
