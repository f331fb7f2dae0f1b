import type { SessionEntry } from '@mariozechner/pi-coding-agent';
import type { ReadonlySessionManager } from '../host-api.ts';

/** The content a context edit may carry: a string, or the blocks of the target's role. */
export type EditContent = string | readonly object[];

/** One entry of Pi's request projection (`SessionManager.buildSessionProjection`, Pi ≥ 0.87). */
export interface ProjectedEntry {
  readonly sourceEntry: SessionEntry;
  readonly messages: readonly unknown[];
}

/** What the edit landing calls on Pi's session manager beyond what extensions are typed to see. */
export interface SessionEditing {
  buildSessionProjection(): { readonly entries: readonly ProjectedEntry[]; readonly messages: readonly unknown[] };
  appendContextEdit(targetId: string, replacement: { content: EditContent } | null): string;
  appendCustomEntry(customType: string, data?: unknown): string;
  appendCustomMessageEntry(customType: string, content: EditContent, display: boolean, details?: unknown): string;
}

/**
 * The part of Pi's session manager the edit landing writes through. `ctx.sessionManager` is
 * typed read-only for extensions, but at run time it is the session's own manager; Pi's SDK
 * documents appending to it between boundaries, and every request is projected from it afresh.
 * An intersection, not an extension: on Pi lines whose read-only manager already declares
 * `buildSessionProjection`, its richer type must not clash with the narrower one read here.
 */
export type EditingSessionManager = Omit<ReadonlySessionManager, keyof SessionEditing> & SessionEditing;

/**
 * The session manager, when its Pi builds every request from a projection that honours
 * `context_edit` entries (Pi ≥ 0.87), else undefined: older Pis land through the `context` hook.
 */
export function editingSessionManager(sessionManager: ReadonlySessionManager): EditingSessionManager | undefined {
  const candidate = sessionManager as Partial<EditingSessionManager>;
  const capable =
    typeof candidate.buildSessionProjection === 'function' &&
    typeof candidate.appendContextEdit === 'function' &&
    typeof candidate.appendCustomEntry === 'function' &&
    typeof candidate.appendCustomMessageEntry === 'function';
  return capable ? (sessionManager as EditingSessionManager) : undefined;
}

/**
 * The custom entry each landing appends after its edits: the edit entries it wrote, for the next
 * read of the branch.
 */
export const LANDING_MARKER_TYPE = 'pi-fold.landing';

/** The custom message type of a notice or receipt landed as a session entry (docs/behaviour.md B3.5, B5.3). */
export const INSERT_MESSAGE_TYPE = 'pi-fold.insert';

/** What a landing marker records. */
export interface LandingMarker {
  /** Ids of the `context_edit` entries this landing appended. */
  readonly editIds: readonly string[];
  /** The ledger request the landing was made for. */
  readonly request: number;
  /**
   * The folds the window shows after this landing (placeholders and stubs), so the file and `pi
   * --export` say where each stands.
   */
  readonly folds?: readonly string[];
}
