/** What a host hands in: the entries of the active branch, as the engine reads them. Types only. */

/** Roles the engine distinguishes. Host extras that reach the model map to `user`. */
export type EntryRole = 'user' | 'assistant' | 'toolResult';

/** One tool call inside an assistant entry. */
export interface ToolCallReference {
  /** The host's tool call id; results point back to it. */
  readonly id: string;
  /** Tool name as the model called it. */
  readonly name: string;
  /** The call's arguments as stable JSON (used in briefs). */
  readonly argumentsJson: string;
}

/** One message entry of the active branch. Immutable once the host has produced it. */
export interface TranscriptEntry {
  /**
   * Stable id of the entry. Must be unique in the session, and stable across requests:
   * the same message keeps the same id on every read. An id also names the entry's place
   * on its branch: two reads that show the same id at the same position share every entry
   * before it (true of Pi's entry tree, and of ids chained from the previous entry's id).
   * The engine still compares every position, so a host that slips here costs a rewrite, not a wrong window.
   */
  readonly id: string;
  /** What kind of message this is. */
  readonly role: EntryRole;
  /**
   * The exact canonical bytes of the host message (single-line, e.g. stable JSON).
   * Folding stores these bytes; expanding returns exactly them. Must not contain a newline
   * character, because fold sources are stored one entry per line.
   */
  readonly bytes: string;
  /**
   * SHA-256 (hex) of `bytes` in UTF-8, when the host already has it. Computed when absent; a
   * value that is not the hash of `bytes` is refused (`TRANSCRIPT.INVALID_ENTRY`).
   */
  readonly sha256?: string;
  /** Human-readable text of the message (text blocks joined); used for briefs only. */
  readonly text: string;
  /** Tool calls carried by an assistant entry, in order. */
  readonly toolCalls?: readonly ToolCallReference[];
  /** For a `toolResult` entry: the id of the call it answers. */
  readonly toolCallId?: string;
  /** For a `toolResult` entry: the tool's name. */
  readonly toolName?: string;
  /**
   * True when the host cannot vouch for the entry (e.g. a message another extension injected):
   * protected entries are never folded.
   * @default false
   */
  readonly protected?: boolean;
  /**
   * Chars of what the model reads of this message, counted as Pi's own token estimate counts
   * them (text, thinking, tool-call names and arguments, result text; an image as 4,800),
   * without the host's bookkeeping that `bytes` also carries (usage, timestamps, model names).
   * The raw working-set floor is measured with it (docs/cost-scheduling.md). A non-negative
   * integer of at most 2^31 − 1: any other value is refused as `TRANSCRIPT.INVALID_ENTRY`.
   * @default the length of `bytes`
   */
  readonly contentChars?: number;
}
