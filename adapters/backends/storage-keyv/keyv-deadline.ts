import { FoldError } from '../../../core/fold-error.ts';

/**
 * How long one store call may wait for its backend before it fails, in ms. A backend that
 * never answers (a Redis client queueing commands while its server is down, a connection
 * that hangs) must not hold a request forever: the runtime survives a failed call
 * (docs/reliability.md, "Disk full / store down"), not one that never ends. Above SQLite's
 * default busy timeout (10 s), so a call waiting its turn for a lock is not cut short.
 */
export const DEFAULT_CALL_TIMEOUT_MS = 15_000;

/** The call timeout a store was given, checked: a positive number of ms, or `Infinity` for none. */
export function checkedCallTimeout(timeoutMs: unknown, storeName: string): number {
  if (timeoutMs === undefined) return DEFAULT_CALL_TIMEOUT_MS;
  if (typeof timeoutMs !== 'number' || Number.isNaN(timeoutMs) || timeoutMs <= 0)
    throw new FoldError(
      'SETTINGS.INVALID',
      `${storeName} store: callTimeoutMs must be a positive number of ms (or Infinity), got ${String(timeoutMs)}`,
    );
  return timeoutMs;
}

/** What a call that ran out of time is rejected with, before the store names it. */
export class DeadlinePassed extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
    this.name = 'DeadlinePassed';
  }
}

/**
 * `work()`, or a `DeadlinePassed` rejection once `timeoutMs` has gone by. The work itself
 * cannot be cancelled (Keyv has no way to), so it may still finish later; its outcome is
 * then ignored. The timer is cleared as soon as the call settles; it is not unref'd, so a
 * process waiting on nothing but a hung call still lives to report the failure.
 */
export async function withinDeadline<T>(timeoutMs: number, work: () => Promise<T>): Promise<T> {
  if (!Number.isFinite(timeoutMs)) return work();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new DeadlinePassed(timeoutMs)), timeoutMs);
  });
  const running = work();
  // A late rejection after the deadline must not surface as unhandled.
  running.catch(() => undefined);
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}
