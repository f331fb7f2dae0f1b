import type { WindowInsertV1 } from '../ports/fold-records.ts';
import type { CommitPlan } from './commit-planner.ts';
import type { FoldRuntime } from './fold-runtime.ts';
import { pushMessage, type WindowDraft } from './window-log.ts';
import { commitReceiptText, unbriefedNoticeText } from './window-text.ts';

/** Unbriefed cut folds that earn one notice (B5.3). */
const NOTICE_AFTER_UNBRIEFED = 3;

/**
 * Notices and receipts: words appended once at the tail and never changed (I7). They are
 * kept in state, anchored after an entry, so a full render puts them back where they were.
 */

/** Drop inserts whose anchor a collapsed chapter or consolidation now hides (at a rewrite only). */
export function pruneHiddenInserts(runtime: FoldRuntime): void {
  const { index, lattice } = runtime;
  runtime.memory.inserts = runtime.memory.inserts.filter((insert) => {
    const position = index.positionOf(insert.afterEntryId);
    if (position === undefined) return true;
    return !lattice.enclosing(position).some((placed) => placed.record.kind !== 'tool' && !lattice.expanded.has(placed.record.id));
  });
}

/** B3.4: one bounded receipt after a commit. */
export function appendReceipt(runtime: FoldRuntime, draft: WindowDraft, plan: CommitPlan, estimateBefore: number, budget: number): boolean {
  const after = runtime.estimateTokens(draft.chars);
  const text = commitReceiptText({
    epoch: runtime.memory.epoch,
    folds: plan.folds.map((fold) => ({ id: fold.record.id, kind: fold.record.kind })),
    freedTokens: Math.max(0, Math.round(estimateBefore - after)),
    occupancyBefore: estimateBefore / budget,
    occupancyAfter: after / budget,
    toolName: runtime.settings.toolName,
  });
  return appendInsert(runtime, draft, 'receipt', text);
}

/** B5.3: once per frozen projection, name the cut folds still waiting for the agent's words. */
export function appendNotice(runtime: FoldRuntime, draft: WindowDraft): boolean {
  const { memory, index, lattice } = runtime;
  if (memory.noticeShownSinceRewrite) return false;
  const unbriefed = memory.marks.filter((mark) => mark.brief === undefined && lattice.record(mark.id) === undefined);
  if (unbriefed.length < NOTICE_AFTER_UNBRIEFED) return false;
  const described = unbriefed.map((mark) => {
    const first = index.positionOf(mark.firstEntryId) ?? 0;
    const last = index.positionOf(mark.lastEntryId) ?? first;
    let chars = 0;
    for (let position = first; position <= last; position += 1) chars += index.entries[position]?.bytes.length ?? 0;
    return { id: mark.id, kind: mark.kind, chars };
  });
  const appended = appendInsert(runtime, draft, 'notice', unbriefedNoticeText(described, runtime.settings.toolName));
  if (appended) memory.noticeShownSinceRewrite = true;
  return appended;
}

function appendInsert(runtime: FoldRuntime, draft: WindowDraft, kind: WindowInsertV1['kind'], text: string): boolean {
  const { index, memory } = runtime;
  const last = index.entries[index.length - 1];
  if (last === undefined) return false;
  // Never between a call and its result: wait until the newest batch has its results.
  if (!index.units[index.units.length - 1]!.complete) return false;
  const sequence = memory.inserts.filter((insert) => insert.afterEntryId === last.id).length;
  const insert: WindowInsertV1 = { kind, afterEntryId: last.id, sequence, text };
  memory.inserts.push(insert);
  pushMessage(draft, runtime.renderer.insertMessage(insert));
  return true;
}
