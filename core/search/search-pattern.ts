/** Room core/search/: the agent's search over folded history, its pattern, worker and verified text. */

import { setFlagsFromString } from 'node:v8';
import { FoldError } from '../fold-error.ts';
import { requiredLiteral } from './required-literal.ts';

/** What the agent asked to find. */
export interface SearchQuery {
  readonly pattern: string;
  /** Treat `pattern` as a regular expression (linear-time subset) instead of a literal. */
  readonly regex: boolean;
  readonly ignoreCase: boolean;
}

/**
 * A compiled search: a global RegExp whose time is bounded by the text it scans (a literal:
 * at most the pattern's length per position; a regular expression: linear, on V8's linear
 * engine, matched on a worker under the search bound of regex-worker.ts).
 *
 * Entries are stored as single-line JSON, so a literal matches either as written (the JSON
 * structure itself, e.g. `"role":"user"`) or in its JSON-escaped form (a newline or a quote
 * in the pattern finds the same newline or quote inside a string value). A regular
 * expression runs on the stored JSON as it is.
 */
export interface CompiledSearch {
  readonly expression: RegExp;
  readonly describe: string;
  /**
   * A regular expression's required literal (required-literal.ts) as a global literal
   * expression on the fast engine: text it does not occur in cannot match, and is skipped.
   */
  readonly requiredLiteral?: RegExp;
}

export function compileSearch(query: SearchQuery): CompiledSearch {
  // V8's linear engine has no case-insensitive mode, so a literal spells its case
  // folding out as character classes; a regular expression asks for the `i` flag and is
  // refused with a reason where the engine cannot honour it.
  const source = query.regex ? query.pattern : literalSource(query.pattern, query.ignoreCase);
  const flags = `g${query.regex && query.ignoreCase ? 'i' : ''}`;
  // A literal compiles to escaped characters, one-character classes and at most one top-level
  // alternation of two literals: no quantifier, so the backtracking engine tries at most the
  // pattern's length at each position and cannot blow up, and it skips ahead over text that
  // cannot match. The linear engine walks every char the slow way, orders of magnitude slower
  // on a large span, so only a regular expression the agent wrote goes through it.
  const expression = query.regex ? linearRegExp(source, flags, query.pattern) : new RegExp(source, flags);
  if (query.regex && expression.test('')) {
    throw new FoldError(
      'ACTION.UNSAFE_PATTERN',
      `search: the pattern ${JSON.stringify(clipPattern(query.pattern))} matches the empty string, so it would match everywhere; anchor it to some text`,
      { details: { pattern: clipPattern(query.pattern) } },
    );
  }
  expression.lastIndex = 0;
  const describe = `${query.regex ? 'regex' : 'literal'}${query.ignoreCase ? ', ignoring case' : ''}`;
  const literal = query.regex ? requiredLiteral(query.pattern) : undefined;
  if (literal === undefined) return { expression, describe };
  // No quantifier in it, so the backtracking engine runs it in time bounded by the text.
  const finder = new RegExp(query.ignoreCase ? caseFolded(literal) : escapeForRegExp(literal), 'g');
  return { expression, describe, requiredLiteral: finder };
}

let linearEngineEnabled = false;

/**
 * Compile with V8's linear-time engine (the `l` flag), so no pattern can backtrack
 * catastrophically however it is written: time stays bounded by the bytes scanned.
 * Patterns that engine cannot run (back-references, look-around) are refused with a
 * reason rather than run on the backtracking engine.
 */
function linearRegExp(source: string, flags: string, pattern: string): RegExp {
  try {
    return new RegExp(source, `${flags}l`);
  } catch (error) {
    if (isFlagUnsupported(error) && !linearEngineEnabled) {
      // The engine ships with V8 but sits behind a flag; it only adds the `l` flag and
      // changes no other expression, so turning it on for the process is safe.
      linearEngineEnabled = true;
      setFlagsFromString('--enable-experimental-regexp-engine');
      return linearRegExp(source, flags, pattern);
    }
    if (isFlagUnsupported(error)) {
      throw new FoldError(
        'ACTION.UNSAFE_PATTERN',
        'search: this JavaScript engine has no linear-time regular expressions; search with a literal pattern instead',
        { details: { pattern: clipPattern(pattern) } },
      );
    }
    const reason = error instanceof Error ? error.message : String(error);
    const linear = /linear time/i.test(reason);
    if (linear && flags.includes('i')) {
      throw new FoldError(
        'ACTION.UNSAFE_PATTERN',
        `search: a regular expression cannot ignore case in bounded time here; spell the cases out (e.g. [Ee]rror) or search a literal with ignoreCase`,
        { details: { pattern: clipPattern(pattern) } },
      );
    }
    throw new FoldError(
      linear ? 'ACTION.UNSAFE_PATTERN' : 'ACTION.INVALID_ARGUMENT',
      linear
        ? `search: the pattern ${JSON.stringify(clipPattern(pattern))} needs back-references, look-around or a large counted repetition, which cannot run in bounded time; use a literal or a simpler expression`
        : `search: the pattern ${JSON.stringify(clipPattern(pattern))} is not a valid regular expression (${reason})`,
      { details: { pattern: clipPattern(pattern) } },
    );
  }
}

function isFlagUnsupported(error: unknown): boolean {
  return error instanceof SyntaxError && /flags/i.test(error.message);
}

function literalSource(pattern: string, ignoreCase: boolean): string {
  const spell = ignoreCase ? caseFolded : escapeForRegExp;
  const escaped = JSON.stringify(pattern).slice(1, -1);
  return escaped === pattern ? spell(pattern) : `${spell(pattern)}|${spell(escaped)}`;
}

/** `[aA]`-style classes for letters with two cases; everything else escaped. */
function caseFolded(text: string): string {
  let source = '';
  for (const character of text) {
    const lower = character.toLowerCase();
    const upper = character.toUpperCase();
    source +=
      lower !== upper && lower.length === 1 && upper.length === 1 ? `[${lower}${upper}]` : escapeForRegExp(character);
  }
  return source;
}

function escapeForRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function clipPattern(pattern: string): string {
  return pattern.length > 60 ? `${pattern.slice(0, 60)}…` : pattern;
}
