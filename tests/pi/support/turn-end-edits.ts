import type { ExtensionAPI, ExtensionContext } from '@mariozechner/pi-coding-agent';

/**
 * Pi ≥ 0.87's actionable `turn_end` boundary, typed here because the root's Pi 0.73 types
 * predate it: a handler may return `entries` (session entries Pi validates, then appends in
 * order once every handler has run), among them `context_edit` drafts. See
 * docs/pi-context-edits.md for what Pi 1.6.0 does with them.
 */

/** Content a context edit may put in place of a message's content. */
export type EditContent = string | readonly Record<string, unknown>[];

/** One draft entry a boundary handler proposes. */
export type BoundaryDraft =
  | { readonly type: 'context_edit'; readonly targetId: string; readonly replacement: { content: EditContent } | null }
  | {
      readonly type: 'custom_message';
      readonly customType: string;
      readonly content: string;
      readonly display: boolean;
    }
  | { readonly type: 'custom'; readonly customType: string; readonly data?: unknown };

/** What Pi ≥ 0.87 hands a `turn_end` handler beyond Pi 0.73's fields. */
export interface BoundaryTurnEnd {
  readonly turnIndex: number;
  readonly messageEntryId: string;
  readonly toolResultEntryIds: readonly string[];
  /** Drafts proposed by handlers that ran before this one. */
  readonly entries: readonly BoundaryDraft[];
}

export type BoundaryHandler = (
  event: BoundaryTurnEnd,
  ctx: ExtensionContext,
) => { entries: readonly BoundaryDraft[] } | undefined | Promise<{ entries: readonly BoundaryDraft[] } | undefined>;

interface BoundaryApi {
  on(event: 'turn_end', handler: BoundaryHandler): void;
}

/** Register `handler` on Pi's `turn_end` with the ≥ 0.87 boundary signature. */
export function onTurnEndBoundary(pi: ExtensionAPI, handler: BoundaryHandler): void {
  (pi as unknown as BoundaryApi).on('turn_end', handler);
}

/** Whether a Pi version has `context_edit` entries and actionable turn boundaries (0.87.0 and later). */
export function hasContextEdits(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map((part) => Number.parseInt(part, 10));
  return major > 0 || minor >= 87;
}
