import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import { clip, oneLine } from '../../../core/folds/briefs.ts';
import type { FoldLatticeView } from '../../../core/folds/fold-lattice.ts';
import type { FoldRecord } from '../../../ports/fold-records.ts';

/**
 * Which folds a person's `/compact` summarises away, and the list appended to Pi's summary so
 * the model keeps every one of their ids after the cut (docs/behaviour.md B6.1, I2). The
 * folds stay in the store; only the window loses their placeholders.
 */

/** The heading of the list; a later compaction strips the old list from the summary it updates. */
export const FOLD_LIST_MARK = '[pi-fold: folds behind this summary]';

/**
 * Chars of briefs the whole list may show, and the most and fewest per fold: the list sits at
 * the top of every later request, so a session with hundreds of folds gets shorter briefs.
 * Every id is always listed; a peek shows the whole brief.
 */
const LIST_BRIEFS_CHARS = 24_000;
const LIST_BRIEF_MAX_CHARS = 300;
const LIST_BRIEF_MIN_CHARS = 60;

/** One fold the cut summarises. */
export interface FoldBehindCut {
  readonly record: FoldRecord;
  /** The window showed its source raw (an expand), not its placeholder. */
  readonly expanded: boolean;
}

/**
 * Folds whose span starts before `firstKeptEntryId` on `branch`: after the cut the window no
 * longer shows them (a span the cut splits loses its placeholder too, since a fold is placed
 * only where its whole span is). The list follows what the window showed: a collapsed fold
 * stands for the folds inside it (its peek names them), an expanded one is listed and its
 * children are looked at in turn. Folds off this branch are not listed.
 */
export function foldsBehindCut(
  lattice: Pick<FoldLatticeView, 'rootRecords' | 'record' | 'expanded'>,
  branch: readonly Pick<SessionEntry, 'id'>[],
  firstKeptEntryId: string,
): FoldBehindCut[] {
  const positions = new Map(branch.map((entry, position) => [entry.id, position]));
  const cut = positions.get(firstKeptEntryId) ?? branch.length;
  const startOf = (record: FoldRecord) => branchPosition(positions, record.firstEntryId, record.lastEntryId);
  const listed: FoldBehindCut[] = [];
  const visit = (record: FoldRecord): void => {
    const start = startOf(record);
    if (start === undefined || start >= cut) return;
    const expanded = lattice.expanded.has(record.id);
    listed.push({ record, expanded });
    if (!expanded) return;
    for (const part of record.parts) {
      const child = part.kind === 'fold' ? lattice.record(part.foldId) : undefined;
      if (child !== undefined) visit(child);
    }
  };
  const roots = lattice.rootRecords().filter((record) => startOf(record) !== undefined);
  roots.sort((a, b) => startOf(a)! - startOf(b)!);
  for (const root of roots) visit(root);
  return listed;
}

/**
 * Where a fold's span starts on the branch. Entry ids are Pi's entry ids; one another
 * extension rewrote carries a `~` suffix, and a message no entry vouched for has no place,
 * so the span's last entry stands in for its first.
 */
function branchPosition(positions: ReadonlyMap<string, number>, ...entryIds: string[]): number | undefined {
  for (const entryId of entryIds) {
    const position = positions.get(entryId.split('~')[0]!);
    if (position !== undefined) return position;
  }
  return undefined;
}

/** The text appended to Pi's summary: every fold behind the cut, its brief, and how to read it. */
export function foldListText(folds: readonly FoldBehindCut[], toolName: string): string {
  const lines = [
    FOLD_LIST_MARK,
    `These ${folds.length} fold${folds.length === 1 ? '' : 's'} of pi-fold were in the conversation this summary replaces. Each keeps its exact source, byte for byte: read it with ${toolName} {"action":"peek","id":"<fold id>"}, or find text in all of them with ${toolName} {"action":"search","pattern":"…"}. Folds nested in one are named by its peek.`,
  ];
  const briefChars = Math.max(
    LIST_BRIEF_MIN_CHARS,
    Math.min(LIST_BRIEF_MAX_CHARS, Math.floor(LIST_BRIEFS_CHARS / Math.max(1, folds.length))),
  );
  for (const { record, expanded } of folds) {
    const state = expanded ? ', was expanded' : '';
    lines.push(
      `- ${record.id} (${record.kind}, ${record.entryCount} entries, ${record.sourceChars} chars${state}): ${clip(oneLine(record.brief), briefChars)}`,
    );
  }
  return lines.join('\n');
}

/** A summary without the fold list an earlier compaction appended to it. */
export function withoutFoldList(summary: string): string {
  const at = summary.indexOf(`\n\n${FOLD_LIST_MARK}`);
  return at < 0 ? summary : summary.slice(0, at);
}
