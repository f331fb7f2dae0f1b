import { PEEK_DEFAULT_BYTES } from '../../../core/actions/action-arguments.ts';
import type { Need, RecordedCall, RecordingNeeds, ToolSource } from './extract-needs.ts';
import { holdsPiece, type WindowView } from './window-view.ts';

/**
 * How a need stood at the request where the recorded model used it, best first:
 * - `visible`: the piece is in the window, in any words (a result, a summary, a brief);
 * - `oneCallAway`: a placeholder in view names the call whose result holds it, so a peek of
 *   that fold returns the exact bytes (through a consolidation, a peek of it and one of the
 *   child: both billed), or the result is in view spilled and its pointer reads it back;
 * - `reobtainable`: the result was a read of a file whose path is in view and no later call
 *   named that file before this request, so reading it again gives the same bytes;
 * - `searchable`: the runtime holds the exact bytes but only an exact search finds them, and a
 *   model that does not know what it lost cannot write the query;
 * - `lost`: none of these.
 */
export type NeedScore = 'visible' | 'oneCallAway' | 'reobtainable' | 'searchable' | 'lost';
export const NEED_SCORES: readonly NeedScore[] = ['visible', 'oneCallAway', 'reobtainable', 'searchable', 'lost'];

/** What a way of keeping the window can do besides showing it. */
export interface RecoveryAbilities {
  /** It answers a peek of a fold named in view with the fold's exact bytes (pi-fold). */
  readonly peek: boolean;
  /** It answers an exact search over everything it took out of the window (pi-fold). */
  readonly search: boolean;
}

/** A need's score and, when it takes calls to reach, what they read back. */
export interface ScoredNeed {
  readonly score: NeedScore;
  /** Calls it takes: peeks (one, or two through a consolidation) or one re-read. */
  readonly calls: number;
  /** What the calls bring back into the window (a fold's or a file's text), keyed so one call serves every need it holds. */
  readonly readBack?: { readonly key: string; readonly text: string };
}

/** Share of an oversized peek given to the document's head (the rest shows its tail), as pi-fold cuts it. */
const PEEK_HEAD_SHARE = 0.6;

/** Score one need against the window its request showed. */
export function scoreNeed(
  need: Need,
  window: WindowView,
  recording: Pick<RecordingNeeds, 'sources' | 'calls'>,
  abilities: RecoveryAbilities,
): ScoredNeed {
  if (holdsPiece(window.text, need.piece)) return { score: 'visible', calls: 0 };
  const sources = need.sources
    .map((index) => recording.sources.get(index))
    .filter((source): source is ToolSource => source !== undefined)
    .reverse();
  if (abilities.peek)
    for (const source of sources) {
      const reach = peekReach(source, window);
      if (reach === undefined) continue;
      const pages = peekPages(source.text, need.piece);
      return {
        score: 'oneCallAway',
        calls: reach.calls + pages.calls - 1,
        readBack: { key: reach.key, text: pages.text },
      };
    }
  for (const source of sources)
    if (
      source.readPath !== undefined &&
      unchangedSince(source, need, recording.calls) &&
      holdsPiece(window.text, source.readPath)
    )
      return { score: 'reobtainable', calls: 1, readBack: { key: `read ${source.readPath}`, text: source.text } };
  if (abilities.search && sources.length > 0) return { score: 'searchable', calls: 0 };
  return { score: 'lost', calls: 0 };
}

/** How many peeks reach a source's exact bytes from this window, and under which key, if any do. */
function peekReach(source: ToolSource, window: WindowView): { calls: number; key: string } | undefined {
  const callLine = source.callLine;
  if (callLine !== undefined) {
    for (const placeholder of window.placeholders)
      if (placeholder.kind === 'tool' && placeholder.briefLines.includes(callLine))
        return { calls: 1, key: placeholder.id };
    const childLine = `(tool): ${callLine}`;
    for (const placeholder of window.placeholders)
      if (placeholder.kind === 'consolidation' && placeholder.briefLines.some((line) => line.includes(childLine)))
        return { calls: 2, key: `${placeholder.id} ${callLine}` };
  }
  const head = source.text.slice(0, 120);
  if (head.length > 0 && window.spilledResults.some((result) => result.startsWith(head)))
    return { calls: 1, key: `spill ${source.entryIndex}` };
  return undefined;
}

/**
 * What peeks of a fold return before the piece is in view, read as pi-fold answers them
 * (docs/behaviour.md B4.2): the whole source when it fits the default byte budget, else its
 * head and tail with the offset of the omitted middle, which a model that does not know
 * where the piece is reads on page by page until it comes to it. The result's text stands
 * for the fold's source document.
 */
export function peekPages(text: string, piece: string): { calls: number; text: string } {
  const budget = PEEK_DEFAULT_BYTES;
  if (Buffer.byteLength(text) <= budget) return { calls: 1, text };
  const headEnd = Math.floor(budget * PEEK_HEAD_SHARE);
  const tailStart = Math.max(headEnd, text.length - (budget - headEnd));
  const first = `${text.slice(0, headEnd)}${text.slice(tailStart)}`;
  const at = text.indexOf(piece);
  if (at < 0 || at + piece.length <= headEnd || at >= tailStart) return { calls: 1, text: first };
  const pages = Math.ceil((at + piece.length - headEnd) / budget);
  return { calls: 1 + pages, text: `${first}${text.slice(headEnd, headEnd + pages * budget)}` };
}

/**
 * No call between the read and the need named the file (an edit, a write, a shell command that
 * mentions it): only then is a second read sure to give the bytes the model first saw. A
 * command that names a file without changing it counts too: the check errs towards "changed".
 */
function unchangedSince(source: ToolSource, need: Need, calls: readonly RecordedCall[]): boolean {
  const path = source.readPath!;
  const name = path.split('/').at(-1)!;
  for (const call of calls) {
    if (call.entryIndex <= source.entryIndex) continue;
    if (call.entryIndex >= need.entryIndex) break;
    if (call.argumentsJson.includes(path) || call.argumentsJson.includes(name)) {
      if (isReadOnlyRead(call, path)) continue;
      return false;
    }
  }
  return true;
}

function isReadOnlyRead(call: RecordedCall, path: string): boolean {
  return (
    /^(read|Read|read_file|view|Grep|Glob|grep|glob|find|ls|LS)$/.test(call.name) && call.argumentsJson.includes(path)
  );
}
