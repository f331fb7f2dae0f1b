import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { ExtensionContext } from '@mariozechner/pi-coding-agent';

/** What can take the window away from pi-fold in a Pi session. */
export type OwnershipProblem = 'rewritten-after-pi-fold' | 'rewritten-before-pi-fold' | 'compacted-by-pi';

/** One kind of problem, as `/fold-status` lists it. */
export interface OwnershipWarning {
  readonly problem: OwnershipProblem;
  /** The first occurrence, in words a person can act on. */
  readonly message: string;
  /** How many requests (or compactions) showed it so far. */
  readonly occurrences: number;
  /** The ledger request at the first occurrence (undefined for a compaction before any request). */
  readonly firstRequest: number | undefined;
}

/** Texts shorter than this say too little to be looked for (and providers drop empty ones). */
const MIN_TEXT_CHARS = 12;

/**
 * Watches that the window pi-fold projects is the window the provider receives, and that
 * Pi does not compact behind pi-fold's back. Two runtimes rewriting one context defeat each
 * other: the prefix cache breaks on every request and neither budget holds.
 *
 * After the context hook, the projection's texts are kept (references, no copy); Pi then
 * hands the provider's request body to `before_provider_request` (pi-ai's providers all call
 * `onPayload`), and every text must still be in it whole, in order. Another extension's
 * `context` handler that runs after ours, or one that edits our messages in place or the
 * payload itself, leaves a text missing — also one that keeps a text's start and cuts the
 * rest, which a fingerprint of the first chars alone would miss. A message-thread continuation
 * carries only the newest messages; only those are looked for in it. Each problem is reported once per session;
 * later occurrences are only counted.
 */
export class OwnershipMonitor {
  private expected: { readonly texts: readonly string[]; readonly request: number } | undefined;
  private readonly found = new Map<OwnershipProblem, OwnershipWarning>();
  private manualCompactionAllowed = false;

  get warnings(): readonly OwnershipWarning[] {
    return [...this.found.values()];
  }

  /** The context hook returned `messages` for ledger request `request`. */
  projected(messages: readonly AgentMessage[], request: number): void {
    this.expected = { texts: messages.flatMap(messageTexts), request };
  }

  /**
   * The body the provider is about to send. Returns a warning the first time a rewrite is
   * seen, else undefined. Only the first payload after a projection is compared: Pi's own
   * side calls (compaction summaries) carry other messages.
   */
  checkPayload(payload: unknown): OwnershipWarning | undefined {
    const expected = this.expected;
    this.expected = undefined;
    if (expected === undefined || expected.texts.length === 0) return undefined;
    // Once the kind is known only whether this request shows it matters, not how many texts.
    const known = this.found.has('rewritten-after-pi-fold');
    const strings = payloadStrings(payload);
    const texts = continuesThread(payload) ? textsSinceHeldPrefix(expected.texts, strings) : expected.texts;
    const missing = missingTexts(texts, strings, known ? 1 : Infinity);
    if (missing === 0) return undefined;
    return this.record(
      'rewritten-after-pi-fold',
      expected.request,
      `another extension changed the context after pi-fold projected it (${missing} of ${expected.texts.length} texts pi-fold sent are missing or changed in request ${expected.request}). ` +
        'Two context managers undo each other: the prefix cache is lost and neither budget holds. Disable one of them.',
    );
  }

  /**
   * The context hook found `count` session entries whose message another extension (one that
   * runs before pi-fold) changed since an earlier request. pi-fold folds what it is given, so
   * the window stays correct, but every such change rewrites the prompt and loses the cache.
   */
  rewrittenBefore(count: number, request: number): OwnershipWarning | undefined {
    if (count === 0) return undefined;
    return this.record(
      'rewritten-before-pi-fold',
      request,
      `another extension running before pi-fold changed ${count} earlier message${count === 1 ? '' : 's'} of the session (request ${request}). ` +
        'pi-fold folds what it is given, but each change to history rewrites the prompt and loses the provider cache. If that extension manages context too, disable one of them.',
    );
  }

  /** A `/compact` the person asked for: the compaction that follows is theirs, not a bypass. */
  allowManualCompaction(): void {
    this.manualCompactionAllowed = true;
  }

  /**
   * Pi wrote a compaction entry. pi-fold's own overflow recovery and an allowed manual
   * compaction are expected; anything else means Pi summarised the window without asking.
   */
  compacted(
    entry: { readonly details?: unknown; readonly tokensBefore: number },
    lastRequest: number | undefined,
  ): OwnershipWarning | undefined {
    if (isOwnRecovery(entry.details)) return undefined;
    if (this.manualCompactionAllowed) {
      this.manualCompactionAllowed = false;
      return undefined;
    }
    return this.record(
      'compacted-by-pi',
      lastRequest,
      `Pi compacted the session (about ${entry.tokensBefore} tokens summarised) without going through pi-fold's compaction guard. ` +
        "Summarised turns are no longer in the window as sent; folded material stays exact in the store. Check that Pi emits session_before_compact to extensions, or turn Pi's compaction off.",
    );
  }

  private record(
    problem: OwnershipProblem,
    request: number | undefined,
    message: string,
  ): OwnershipWarning | undefined {
    const known = this.found.get(problem);
    if (known !== undefined) {
      this.found.set(problem, { ...known, occurrences: known.occurrences + 1 });
      return undefined;
    }
    const warning: OwnershipWarning = { problem, message, occurrences: 1, firstRequest: request };
    this.found.set(problem, warning);
    return warning;
  }
}

function isOwnRecovery(details: unknown): boolean {
  return (
    typeof details === 'object' && details !== null && (details as { piFold?: unknown }).piFold === 'overflow-recovery'
  );
}

/**
 * The texts of a message that reach every provider unchanged: user, assistant and tool
 * result text. Thinking, tool call arguments and Pi's own message kinds are re-encoded on
 * the way, and pi-ai drops failed or aborted assistant turns, so none of those is looked for.
 */
function messageTexts(message: AgentMessage): string[] {
  if (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'toolResult') return [];
  if (message.role === 'assistant' && (message.stopReason === 'error' || message.stopReason === 'aborted')) return [];
  const content = message.content;
  const texts =
    typeof content === 'string' ? [content] : content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  return texts.filter((text) => text.length >= MIN_TEXT_CHARS && text.trim().length >= MIN_TEXT_CHARS);
}

/**
 * An Anthropic message-thread continuation (`thread: {type: "continue"}`, Pi 1.5.1 and later):
 * the server holds the conversation up to the previous reply and the body carries only what came
 * after it. pi-ai sends one only when the held prefix is byte for byte what this request would
 * send, so a rewrite of earlier context already turns it into a whole request.
 */
function continuesThread(payload: unknown): boolean {
  const thread = typeof payload === 'object' && payload !== null ? (payload as { thread?: unknown }).thread : undefined;
  return typeof thread === 'object' && thread !== null && (thread as { type?: unknown }).type === 'continue';
}

/**
 * The texts a continuation must carry: from the first of pi-fold's texts found in it on (what
 * the server holds comes before), and always the newest, which no held prefix can contain.
 */
function textsSinceHeldPrefix(texts: readonly string[], strings: readonly string[]): readonly string[] {
  const first = texts.findIndex((text) =>
    strings.some((candidate) => candidate.length >= text.length && candidate.includes(text)),
  );
  return first < 0 ? texts.slice(-1) : texts.slice(first);
}

const LONE_SURROGATES = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Every string in the payload, in document order (no copy of their text). */
function payloadStrings(payload: unknown): string[] {
  const strings: string[] = [];
  // A body is JSON-like, but another extension may hand back anything: never loop on a cycle.
  const seen = new WeakSet<object>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      strings.push(value);
      return;
    }
    if (typeof value !== 'object' || value === null || seen.has(value)) return;
    seen.add(value);
    for (const item of Array.isArray(value) ? value : Object.values(value)) visit(item);
  };
  visit(payload);
  return strings;
}

/**
 * Counts texts found whole in none of `strings`, stopping at `enough`. Providers keep message
 * order, so each is looked for after the previous one (one pass over the payload); only one
 * not found there is looked for everywhere, in case a provider moved it. A text pi-ai passes
 * through is usually the very string in the body, so the common case is one comparison per
 * text; strings too short to hold it are skipped by length alone.
 */
function missingTexts(texts: readonly string[], strings: readonly string[], enough: number): number {
  const cursor = { index: 0, offset: 0 };
  let missing = 0;
  for (const text of texts) {
    if (!foundInOrder(text, strings, cursor) && !foundAnywhere(text, strings)) missing += 1;
    if (missing >= enough) break;
  }
  return missing;
}

function foundInOrder(text: string, strings: readonly string[], cursor: { index: number; offset: number }): boolean {
  for (let position = cursor.index; position < strings.length; position += 1) {
    const candidate = strings[position]!;
    const from = position === cursor.index ? cursor.offset : 0;
    if (candidate.length - from < text.length) continue;
    const at = from === 0 && candidate === text ? 0 : candidate.indexOf(text, from);
    if (at >= 0) {
      cursor.index = position;
      cursor.offset = at + text.length;
      return true;
    }
  }
  return false;
}

/**
 * Anywhere in the body, also as pi-ai's encoders may pass it on: trimmed (Mistral trims tool
 * results), and with lone surrogates dropped or replaced by U+FFFD. Only a text not found as
 * is gets these variants, so they cost nothing on the common path.
 */
function foundAnywhere(text: string, strings: readonly string[]): boolean {
  const variants = [text];
  const trimmed = text.trim();
  if (trimmed !== text) variants.push(trimmed);
  if (LONE_SURROGATES.test(text))
    variants.push(
      ...[text, trimmed].flatMap((base) => [
        base.replace(LONE_SURROGATES, ''),
        base.replace(LONE_SURROGATES, '\uFFFD'),
      ]),
    );
  LONE_SURROGATES.lastIndex = 0;
  return variants.some((variant) =>
    strings.some((candidate) => candidate.length >= variant.length && candidate.includes(variant)),
  );
}

/** Tell the person about a new warning (the monitor returns each kind only once). */
export function announceOwnership(ctx: Pick<ExtensionContext, 'ui'>, warning: OwnershipWarning | undefined): void {
  if (warning !== undefined) ctx.ui.notify(`pi-fold: ${warning.message} (shown once; see /fold-status)`, 'warning');
}

/** The `/fold-status` lines for the warnings, empty when pi-fold owns the window alone. */
export function formatOwnershipWarnings(warnings: readonly OwnershipWarning[]): string {
  if (warnings.length === 0) return '';
  const lines = warnings.map((warning) => {
    const since = warning.firstRequest === undefined ? '' : ` since request ${warning.firstRequest}`;
    return `  ! ${warning.problem} (${warning.occurrences}×${since}): ${warning.message}`;
  });
  return `\nOwnership: pi-fold does not own this window alone\n${lines.join('\n')}`;
}
