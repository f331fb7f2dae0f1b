import { FoldError } from '../../core/fold-error.ts';

/**
 * Every command that opens a store waits at most this long for any one answer from it (`--timeout`):
 * a server that accepts the connection and then says nothing (a paused process, a wedged proxy)
 * must end the command with a message, never hold it open.
 */
export const DEFAULT_STORE_TIMEOUT_SECONDS = 15;

/** `--timeout <seconds>` in ms, checked; the default when absent. */
export function storeTimeoutMs(value: string | undefined): number {
  if (value === undefined) return DEFAULT_STORE_TIMEOUT_SECONDS * 1000;
  const seconds = Number(value);
  if (value.trim() === '' || !Number.isFinite(seconds) || seconds <= 0)
    throw new FoldError('SETTINGS.INVALID', `--timeout must be a positive number of seconds, got ${value}`);
  return Math.ceil(seconds * 1000);
}

// What the PostgreSQL driver says when its own connection or query timeout (set from --timeout) runs out.
const PG_TIMEOUTS = /timeout expired|connection timeout|Query read timeout|timeout exceeded when trying to connect/;

/** Whether `error`, or a cause of it, is a store that did not answer within its deadline. */
export function isUnanswered(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 6; depth += 1) {
    if (FoldError.isInstance(current) && typeof current.details.timeoutMs === 'number') return true;
    if (current.name === 'DeadlinePassed' || PG_TIMEOUTS.test(current.message)) return true;
    current = current.cause;
  }
  return false;
}

/**
 * The line a command ends with when its store did not answer in time, or undefined when
 * `error` is something else. `stopped` says what the command left as it was.
 */
export function unansweredLine(command: string, target: string, error: unknown, stopped: string): string | undefined {
  if (!isUnanswered(error)) return undefined;
  const message = error instanceof Error ? error.message : String(error);
  return `pi-fold ${command}: ${target} did not answer in time (${message}); stopped, ${stopped}. Try again once it answers, or give it longer with --timeout <seconds>`;
}
