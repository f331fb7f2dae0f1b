import { type MatchBudget, matchInWorker, SEARCH_STRETCH_UNITS } from './regex-worker.ts';
import type { CompiledSearch } from './search-pattern.ts';

/**
 * Code units past its stretch a match may run and still be found whole. A text is handed to
 * the worker a stretch at a time with this much more after it (and one char before it, so a
 * word boundary or an anchor at its start reads what the whole text would), so a match that
 * crosses a stretch's end is found as the whole text would give it. A match longer than this
 * may be cut short where the text is longer than one stretch (docs/behaviour.md B4, `search`).
 */
export const SEARCH_MATCH_REACH = 64 * 1024;

/** What one text's matching needs: the search, how many matches are still wanted, the shared bound. */
export interface StretchSearch {
  readonly compiled: CompiledSearch;
  readonly pattern: string;
  readonly wanted: number;
  readonly budget: MatchBudget;
}

/**
 * Where the expression matches in `text`, as flat `[index, length, …]` pairs, exactly the
 * matches a global `exec` over the whole text finds (up to `wanted` of them), matched one
 * stretch at a time so the worker never holds more than a stretch and its reach. Stretches
 * without the expression's required literal are skipped without matching.
 */
export async function matchByStretches(text: string, search: StretchSearch): Promise<number[]> {
  const { compiled, budget } = search;
  const found: number[] = [];
  let from = 0;
  while (from < text.length && found.length / 2 < search.wanted) {
    const next = nextRequired(compiled, text, from);
    if (next === undefined) break;
    // A match holding the literal starts at most a reach before it.
    from = Math.max(from, next - SEARCH_MATCH_REACH);
    const to = Math.min(text.length, from + SEARCH_STRETCH_UNITS);
    const sliceStart = Math.max(0, from - 1);
    const sliceEnd = Math.min(text.length, to + SEARCH_MATCH_REACH);
    const stretch = { text: text.slice(sliceStart, sliceEnd), from: from - sliceStart, to: to - sliceStart };
    const wanted = search.wanted - found.length / 2;
    const [matches = []] = await matchInWorker(compiled.expression, [stretch], wanted, budget, search.pattern);
    let resumeAt = to;
    for (let pair = 0; pair < matches.length; pair += 2) {
      const start = sliceStart + matches[pair]!;
      const length = matches[pair + 1]!;
      // A match that ends where the slice ends may owe its end to the cut (an anchor, a word
      // boundary, a greedy run): look again from its start, with a stretch's room after it.
      if (start + length === sliceEnd && sliceEnd < text.length && start > from) {
        resumeAt = start;
        break;
      }
      found.push(start, length);
      // The whole text's exec goes on after the match (one unit on after an empty one).
      resumeAt = Math.max(to, start + Math.max(length, 1));
    }
    from = resumeAt;
  }
  return found;
}

/** Where the required literal next occurs at or after `from` (`from` itself when there is none to look for). */
function nextRequired(compiled: CompiledSearch, text: string, from: number): number | undefined {
  const finder = compiled.requiredLiteral;
  if (finder === undefined) return from;
  finder.lastIndex = from;
  const found = finder.exec(text);
  return found === null ? undefined : found.index;
}

/** Whether `text` can hold a match at all: it holds the required literal, or there is none. */
export function mayMatch(compiled: CompiledSearch, text: string): boolean {
  return nextRequired(compiled, text, 0) !== undefined;
}
