/**
 * The one error type of pi-fold. Every refusal, broken invariant and store failure is a
 * `FoldError` with a dotted `code` (`AREA.REASON`), so hosts can branch on the code and
 * people can read the message.
 */

/** Every code the runtime can raise, grouped by area. */
export const FOLD_ERROR_CODES = [
  'ACTION.UNKNOWN',
  'ACTION.INVALID_ARGUMENT',
  'ACTION.UNKNOWN_ID',
  'ACTION.NOT_PENDING',
  'ACTION.NOT_COMMITTED',
  'ACTION.NOT_EXPANDED',
  'ACTION.ALREADY_EXPANDED',
  'ACTION.OVERLAP',
  'ACTION.PROTECTED',
  'ACTION.OVER_BUDGET',
  'ACTION.PIN_CAP',
  'ACTION.MARK_LIMIT',
  'ACTION.UNSAFE_PATTERN',
  'ACTION.SEARCH_TOO_LARGE',
  'SETTINGS.INVALID',
  'SETTINGS.DELETED_OPTION',
  'SETTINGS.UNKNOWN_OPTION',
  'BUDGET.EXCEEDED',
  'TRANSCRIPT.INVALID_ENTRY',
  'TRANSCRIPT.WRONG_SESSION',
  'TRANSCRIPT.STALE_READ',
  'TRANSCRIPT.NOT_FOUND',
  'TRANSCRIPT.IS_DIRECTORY',
  'TRANSCRIPT.UNREADABLE',
  'TRANSCRIPT.NOT_A_SESSION',
  'TRANSCRIPT.NO_RESPONSES',
  'TRANSCRIPT.LINE_TOO_LONG',
  'STORE.HASH_MISMATCH',
  'STORE.NOT_FOUND',
  'STORE.WRITE_FAILED',
  'STORE.READ_FAILED',
  'STORE.INVALID_KEY',
  'STORE.CAP_REACHED',
  'STORE.QUOTA',
  'STORE.SCHEMA_VERSION',
  'STATE.CORRUPT',
  'INVARIANT.BROKEN',
  'HOST.PACKAGE_MISSING',
  'OUTPUT.INVALID',
] as const;

export type FoldErrorCode = (typeof FOLD_ERROR_CODES)[number];

const MARKER = Symbol.for('pi-fold.error');

export interface FoldErrorOptions {
  readonly cause?: unknown;
  /** Safe, JSON-serialisable facts about the failure (ids, sizes, limits). */
  readonly details?: Readonly<Record<string, unknown>>;
}

export class FoldError extends Error {
  readonly code: FoldErrorCode;
  readonly details: Readonly<Record<string, unknown>>;
  // A symbol marker rather than `instanceof`, because two copies of the package
  // (a host's and an extension's) must still recognise each other's errors.
  protected readonly [MARKER] = true;

  constructor(code: FoldErrorCode, message: string, options: FoldErrorOptions = {}) {
    super(`${code}: ${message}`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FoldError';
    this.code = code;
    this.details = options.details ?? {};
  }

  static isInstance(value: unknown): value is FoldError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[MARKER] === true;
  }

  /** A plain object safe to log or send to a model: no stack, no cause object. */
  toJSON(): { name: string; code: FoldErrorCode; message: string; details: Readonly<Record<string, unknown>> } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}
