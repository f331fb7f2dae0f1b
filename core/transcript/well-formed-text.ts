/**
 * Lone surrogates: UTF-16 halves with no partner. UTF-8 cannot encode them, so a string that
 * holds one is stored as U+FFFD and never reads back as given (docs/behaviour.md I2). Matched
 * per code unit (no `u` flag), so a well-formed pair is never taken apart.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LONE_SURROGATES = new RegExp(LONE_SURROGATE.source, 'g');

/** Index (in UTF-16 code units) of the first lone surrogate in `text`, or -1. */
export function loneSurrogateIndex(text: string): number {
  return text.search(LONE_SURROGATE);
}

/** `text` with every lone surrogate replaced by U+FFFD, as a UTF-8 encoder would store it. */
export function replaceLoneSurrogates(text: string): string {
  return loneSurrogateIndex(text) < 0 ? text : text.replace(LONE_SURROGATES, '\uFFFD');
}
