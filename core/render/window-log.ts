import type { LedgerRow, ProjectedMessage, Projection } from '../../ports/projection-sink.port.ts';

/**
 * The window as an append-only log. A pure append pushes onto the same arrays the last
 * projection used, and every projection is a view (arrays + length) of them, so a request
 * costs what it appends: no copy of the old window is made unless someone reads it whole.
 * Only a rewrite starts a new log.
 */
export class WindowLog {
  readonly messages: ProjectedMessage[] = [];
  readonly digests: string[] = [];
}

/** A prefix of a log: what one projection showed. The first `length` items never change. */
export interface WindowView {
  readonly log: WindowLog;
  readonly length: number;
  readonly chars: number;
}

/** A view under construction. */
export interface WindowDraft {
  readonly log: WindowLog;
  length: number;
  chars: number;
  /** Length of the frozen view this draft extends when it is a pure append of it. */
  readonly extendsFrozen: number | undefined;
}

/** Start a draft that appends to `frozen` (dropping anything a failed attempt left past its end). */
export function appendDraft(frozen: WindowView): WindowDraft {
  const { log } = frozen;
  if (log.messages.length > frozen.length) {
    log.messages.length = frozen.length;
    log.digests.length = frozen.length;
  }
  return { log, length: frozen.length, chars: frozen.chars, extendsFrozen: frozen.length };
}

/** Start a fresh log from a full render. */
export function rewriteDraft(messages: readonly ProjectedMessage[]): WindowDraft {
  const draft: WindowDraft = { log: new WindowLog(), length: 0, chars: 0, extendsFrozen: undefined };
  for (const message of messages) pushMessage(draft, message);
  return draft;
}

export function pushMessage(draft: WindowDraft, message: ProjectedMessage): void {
  draft.log.messages.push(message);
  draft.log.digests.push(message.digest);
  draft.length += 1;
  draft.chars += message.bytes.length;
}

export function freeze(draft: WindowDraft): WindowView {
  return { log: draft.log, length: draft.length, chars: draft.chars };
}

/** The messages of a view as an array of their own (a copy: O(length), made on demand). */
export function viewMessages(view: WindowView): ProjectedMessage[] {
  return view.log.messages.slice(0, view.length);
}

/**
 * A projection whose message array (and the ledger's digests) are copied out of the log
 * only when a host reads them, once.
 */
export function lazyProjection(
  view: WindowView,
  row: Omit<LedgerRow, 'digests'>,
): Projection & { readonly view: WindowView } {
  let messages: ProjectedMessage[] | undefined;
  let digests: string[] | undefined;
  const ledger = row as LedgerRow;
  Object.defineProperty(ledger, 'digests', {
    enumerable: true,
    get: () => (digests ??= view.log.digests.slice(0, view.length)),
  });
  return {
    view,
    ledger,
    get messages() {
      return (messages ??= viewMessages(view));
    },
  };
}
