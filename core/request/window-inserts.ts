import type { WindowInsertV1 } from '../../ports/fold-records.ts';
import type { ProjectedMessage } from '../../ports/projected-message.ts';
import type { CommitPlan } from '../commit/plan/planner.ts';
import { pushMessage, type WindowDraft } from '../render/window-log.ts';
import { commitReceiptText, unbriefedNoticeText } from '../render/window-text.ts';
import type { SessionServices } from '../session/session-services.ts';
import type { SessionModel } from '../state/session-model.ts';
import type { SessionPorts } from '../state/session-ports.ts';

/** What notices and receipts read and write: the anchors, the decisions, the renderer's cached messages. */
export interface InsertTarget {
  readonly ports: Pick<SessionPorts, 'settings'>;
  readonly model: Pick<SessionModel, 'index' | 'lattice' | 'memory'>;
  readonly services: Pick<SessionServices, 'renderer'>;
  estimateTokens(chars: number): number;
}

/** Unbriefed cut folds that earn one notice (docs/behaviour.md B5.3). */
const NOTICE_AFTER_UNBRIEFED = 3;

/**
 * Notices and receipts: words appended once at the tail and never changed (docs/behaviour.md I7). They are
 * kept in state, anchored after an entry, so a full render puts them back where they were.
 */

/** Drop inserts whose anchor a collapsed chapter or consolidation now hides (at a rewrite only). */
export function pruneHiddenInserts(model: Pick<SessionModel, 'index' | 'lattice' | 'memory'>): void {
  const { index, lattice, memory } = model;
  memory.keepInsertsWhere((insert) => {
    const position = index.positionOf(insert.afterEntryId);
    if (position === undefined) return true;
    return !lattice
      .enclosing(position)
      .some((placed) => placed.record.kind !== 'tool' && !lattice.expanded.has(placed.record.id));
  });
}

/**
 * At a commit, drop the notices and receipts that only speak of what is done, where the
 * commit re-sends the window anyway (anchored at or after `rewrittenFrom`, the first entry it
 * folds): a receipt of an earlier commit, and a notice none of whose folds still waits. Kept,
 * they would ride every later request; dropped there, they cost no extra cache write. Ones in
 * the kept prefix stay, since dropping them would re-send what the cache still holds. Returns
 * the dropped inserts' messages, for a patched render to leave out.
 */
export function retireSettledInserts(
  model: Pick<SessionModel, 'index' | 'memory'>,
  renderer: Pick<SessionServices['renderer'], 'insertMessage'>,
  rewrittenFrom: number,
): Set<ProjectedMessage> {
  const { index, memory } = model;
  const waiting = new Set(memory.marks.map((mark) => mark.id));
  const retired = new Set<ProjectedMessage>();
  memory.keepInsertsWhere((insert) => {
    const position = index.positionOf(insert.afterEntryId);
    if (position === undefined || position < rewrittenFrom) return true;
    const settled =
      insert.kind === 'receipt' || (insert.kind === 'notice' && !namedFolds(insert.text).some((id) => waiting.has(id)));
    if (settled) retired.add(renderer.insertMessage(insert));
    return !settled;
  });
  return retired;
}

/** docs/behaviour.md B3.5: one bounded receipt after a commit. */
export function appendReceipt(
  session: InsertTarget,
  draft: WindowDraft,
  plan: CommitPlan,
  estimateBefore: number,
  budget: number,
): boolean {
  const after = session.estimateTokens(draft.chars);
  const text = commitReceiptText({
    epoch: session.model.memory.epoch,
    folds: plan.folds.map((fold) => ({ id: fold.record.id, kind: fold.record.kind })),
    freedTokens: Math.max(0, Math.round(estimateBefore - after)),
    occupancyBefore: estimateBefore / budget,
    occupancyAfter: after / budget,
  });
  return appendInsert(session, draft, 'receipt', text);
}

/** docs/behaviour.md B5.3: once per frozen projection, name the cut folds still waiting for the agent's words. */
export function appendNotice(session: InsertTarget, draft: WindowDraft): boolean {
  const { memory, index, lattice } = session.model;
  if (memory.noticeShownSinceRewrite) return false;
  const unbriefed = memory.marks.filter((mark) => mark.brief === undefined && lattice.record(mark.id) === undefined);
  if (unbriefed.length < NOTICE_AFTER_UNBRIEFED) return false;
  const named = namedInStandingNotices(memory.inserts);
  const unnamed = unbriefed.filter((mark) => !named.has(mark.id));
  // Every waiting fold is already listed by a notice the window still shows.
  if (unnamed.length === 0) return false;
  const described = unnamed.map((mark) => {
    const first = index.positionOf(mark.firstEntryId) ?? 0;
    const last = index.positionOf(mark.lastEntryId) ?? first;
    let chars = 0;
    for (let position = first; position <= last; position += 1) chars += index.entries[position]?.bytes.length ?? 0;
    return { id: mark.id, kind: mark.kind, chars };
  });
  const appended = appendInsert(
    session,
    draft,
    'notice',
    unbriefedNoticeText(described, session.ports.settings.toolName, unbriefed.length - unnamed.length),
  );
  if (appended) memory.noteNoticeShown();
  return appended;
}

const FOLD_ID = /fold_[0-9a-f]{24}/g;

/** The fold ids the notices still in the window name (their text is ours, one id per listed fold). */
function namedInStandingNotices(inserts: readonly WindowInsertV1[]): Set<string> {
  const named = new Set<string>();
  for (const insert of inserts) if (insert.kind === 'notice') for (const id of namedFolds(insert.text)) named.add(id);
  return named;
}

function namedFolds(text: string): string[] {
  return [...text.matchAll(FOLD_ID)].map((match) => match[0]);
}

function appendInsert(session: InsertTarget, draft: WindowDraft, kind: WindowInsertV1['kind'], text: string): boolean {
  const { index, memory } = session.model;
  const last = index.entries[index.length - 1];
  if (last === undefined) return false;
  // Never between a call and its result: wait until the newest batch has its results.
  if (!index.units[index.units.length - 1]!.complete) return false;
  const sequence = memory.inserts.filter((insert) => insert.afterEntryId === last.id).length;
  const insert: WindowInsertV1 = { kind, afterEntryId: last.id, sequence, text };
  memory.recordInsert(insert);
  pushMessage(draft, session.services.renderer.insertMessage(insert));
  return true;
}
