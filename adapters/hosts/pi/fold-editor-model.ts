import { type StatusReport, statusReport } from '../../../core/actions/status-action.ts';
import type { SessionView } from '../../../core/session/session-view.ts';
import type { TranscriptEntry } from '../../../ports/transcript-entry.ts';

/** One selectable line of the editor. */
export type EditorRow =
  | { readonly kind: 'fold'; readonly id: string; readonly label: string }
  | { readonly kind: 'mark'; readonly id: string; readonly label: string }
  | { readonly kind: 'entry'; readonly id: string; readonly pinned: boolean; readonly label: string };

/** What the editor shows: a header and the rows, built from the runtime's own status. */
export interface EditorView {
  readonly header: readonly string[];
  readonly rows: readonly EditorRow[];
}

/** Raw entries listed for marking and pinning: the newest, where curation usually happens. */
const ENTRY_ROWS = 40;
const BAR_WIDTH = 30;

/** An occupancy bar against the budget with the commit band marked, e.g. `[█████░░|░░░]`. */
export function occupancyBar(occupancy: number, maxTarget: number, width: number = BAR_WIDTH): string {
  const filled = Math.max(0, Math.min(width, Math.round(occupancy * width)));
  const trigger = Math.min(width - 1, Math.round(maxTarget * width));
  let bar = '';
  for (let cell = 0; cell < width; cell += 1) bar += cell === trigger ? '|' : cell < filled ? '█' : '░';
  return `[${bar}]`;
}

/** The commit policy in the editor's terms: the band as percentages, or what drives `cost` and `eager`. */
function editorPolicy(report: StatusReport): string {
  const { maxTarget, minTarget } = report.thresholds;
  const fence = Math.round(maxTarget * 100);
  if (report.scheduling === 'cost')
    return `cost-scheduled${report.floorTokens === null ? '' : ` · ≥${report.floorTokens} raw kept`} · fence ${fence}%`;
  if (report.scheduling === 'eager') return `eager · fence ${fence}%`;
  return `commit at ${fence}% → ${Math.round(minTarget * 100)}%`;
}

/** Build the editor's lines from the runtime (read only). */
export function buildEditorView(runtime: SessionView): EditorView {
  const report = statusReport(runtime);
  const occupancy = report.occupancy ?? 0;
  const header = [
    `${occupancyBar(occupancy, report.thresholds.maxTarget)} ${(occupancy * 100).toFixed(1)}% of ${report.budgetTokens ?? '?'} tokens · ${editorPolicy(report)}`,
    `folds ${report.visibleFolds.length} · pending marks ${report.marks.length} · pins ${report.pins.length} · rewrites ${report.counters.rewrites ?? 0} (unattributed ${report.counters.unattributedRewrites ?? 0})`,
  ];
  const rows: EditorRow[] = [];
  for (const fold of report.visibleFolds)
    rows.push({
      kind: 'fold',
      id: fold.id,
      label: `▸ ${fold.id} ${fold.kind} · ${fold.entries} entries · ${fold.brief}`,
    });
  for (const mark of report.marks)
    rows.push({
      kind: 'mark',
      id: mark.id,
      label: `… ${mark.id} ${mark.kind} by ${mark.origin}${mark.briefed ? ' (briefed)' : ''} · frees ≈${mark.freesTokens} tokens`,
    });
  const pins = new Set(report.pins);
  const hidden = new Set<number>();
  for (const placed of runtime.visibleFolds)
    for (let position = placed.first; position <= placed.last; position += 1) hidden.add(position);
  const entries = runtime.index.entries;
  const start = Math.max(0, entries.length - ENTRY_ROWS);
  for (let position = start; position < entries.length; position += 1) {
    if (hidden.has(position)) continue;
    const entry = entries[position]!;
    const pinned = pins.has(entry.id);
    const preview = entryPreview(entry);
    rows.push({
      kind: 'entry',
      id: entry.id,
      pinned,
      label: `${pinned ? '📌' : '·'} ${entry.id} ${entry.role}${entry.toolName === undefined ? '' : ` ${entry.toolName}`} · ${preview}`,
    });
  }
  return { header, rows };
}

/** An entry's text on one line, or the calls it makes when it says nothing (a bare tool call). */
function entryPreview(entry: TranscriptEntry): string {
  const text = entry.text.replace(/\s+/g, ' ').trim();
  if (text.length > 0 || entry.toolCalls === undefined) return text.slice(0, 80);
  return entry.toolCalls
    .map((call) => `[call ${call.name}]`)
    .join(' ')
    .slice(0, 80);
}

/** What a key does to the selected row, as the tool action the agent would call. */
export function actionForKey(
  key: 'enter' | 'expand' | 'refold' | 'pin' | 'unmark',
  row: EditorRow,
): Record<string, unknown> | undefined {
  switch (key) {
    case 'enter':
      return row.kind === 'fold' ? { action: 'peek', id: row.id, ephemeral: false } : undefined;
    case 'expand':
      return row.kind === 'fold' ? { action: 'expand', id: row.id } : undefined;
    case 'refold':
      return row.kind === 'fold' ? { action: 'refold', id: row.id } : undefined;
    case 'pin':
      return row.kind === 'entry' ? { action: row.pinned ? 'unpin' : 'pin', ids: [row.id] } : undefined;
    case 'unmark':
      return row.kind === 'mark' ? { action: 'unmark', id: row.id } : undefined;
  }
}
