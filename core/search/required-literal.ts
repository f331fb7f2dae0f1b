/**
 * The longest run of plain characters every match of a regular expression must contain, if
 * one can be read off its source with certainty. A search looks for it first with the fast
 * literal engine, and text without it is never handed to the linear engine, which walks every
 * char (docs/behaviour.md B4, `search`). Reading it wrong would lose matches, so anything this
 * reader does not fully understand (an alternation at the top, a stray brace, an unknown
 * escape) gives no literal, and the text is matched in full.
 */

/** Escapes that stand for one plain character. */
const PLAIN_ESCAPES: ReadonlyMap<string, string> = new Map([
  ...[...'.\\/*+?()[]{}|^$-'].map((character): [string, string] => [character, character]),
  ['n', '\n'],
  ['t', '\t'],
  ['r', '\r'],
  ['f', '\f'],
  ['v', '\v'],
]);

/** Escapes that stand for a class of characters or a zero-width test: they end a run. */
const CLASS_ESCAPES = new Set([...'dDwWsSbB']);

const QUANTIFIER = /^(?:[*+?]|\{(\d+)(?:,(\d*))?\})\??/;

/** The longest literal every match must contain, or undefined when none can be read with certainty. */
export function requiredLiteral(source: string): string | undefined {
  let best = '';
  let run = '';
  let position = 0;
  const endRun = (): void => {
    if (run.length > best.length) best = run;
    run = '';
  };
  while (position < source.length) {
    const atom = readAtom(source, position);
    if (atom === undefined) return undefined;
    position = atom.end;
    const quantifier = QUANTIFIER.exec(source.slice(position));
    if (source[position] === '{' && quantifier === null) return undefined;
    const least = quantifier === null ? 1 : leastRepeats(quantifier);
    if (quantifier !== null) position += quantifier[0].length;
    if (atom.literal === undefined || least === 0) {
      endRun();
      continue;
    }
    run += atom.literal;
    // `a+` or `a{2,}` still holds one `a` for sure, but what follows it is not next to it.
    if (quantifier !== null) endRun();
  }
  endRun();
  return best.length > 0 ? best : undefined;
}

function leastRepeats(quantifier: RegExpExecArray): number {
  const symbol = quantifier[0][0];
  if (symbol === '*' || symbol === '?') return 0;
  if (symbol === '+') return 1;
  return Number(quantifier[1]);
}

/** One atom at `position`: its end, and the plain character it stands for, if it is one. */
function readAtom(source: string, position: number): { end: number; literal?: string } | undefined {
  const character = source[position]!;
  if (character === '|' || character === ')' || character === '*' || character === '+' || character === '?')
    return undefined;
  if (character === '{' || character === '}' || character === ']') return undefined;
  if (character === '(') {
    const end = groupEnd(source, position);
    return end === undefined ? undefined : { end };
  }
  if (character === '[') {
    const end = classEnd(source, position);
    return end === undefined ? undefined : { end };
  }
  if (character === '.' || character === '^' || character === '$') return { end: position + 1 };
  if (character === '\\') {
    const escaped = source[position + 1];
    if (escaped === undefined) return undefined;
    const plain = PLAIN_ESCAPES.get(escaped);
    if (plain !== undefined) return { end: position + 2, literal: plain };
    if (CLASS_ESCAPES.has(escaped)) return { end: position + 2 };
    return undefined;
  }
  // A surrogate pair is two code units, each plain to the engine without the `u` flag.
  return { end: position + 1, literal: character };
}

/** Just past the `)` closing the group at `position`, or undefined when it does not close. */
function groupEnd(source: string, position: number): number | undefined {
  let depth = 0;
  for (let index = position; index < source.length; index += 1) {
    const character = source[index];
    if (character === '\\') index += 1;
    else if (character === '[') {
      const end = classEnd(source, index);
      if (end === undefined) return undefined;
      index = end - 1;
    } else if (character === '(') depth += 1;
    else if (character === ')') {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/** Just past the `]` closing the class at `position`, or undefined when it does not close. */
function classEnd(source: string, position: number): number | undefined {
  for (let index = position + 1; index < source.length; index += 1) {
    const character = source[index];
    if (character === '\\') index += 1;
    else if (character === ']') return index + 1;
  }
  return undefined;
}
