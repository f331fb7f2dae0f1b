/**
 * Resolves on the event loop's next turn, after the host has gone on with what it was doing.
 *
 * Background writes start here rather than where they are asked for. A store may do part of a
 * write synchronously (the fs store makes its small-file calls that way, atomic-files.ts says
 * why), and started inside `project()` that part would run before the request goes out, so
 * every artifact written would lengthen the request that wrote it (bench:pi's engine p50 shows
 * it). Waiting one turn lets the request leave first; whoever needs the write (a commit,
 * `durable()`) still waits for it.
 */
export function nextLoopTurn(): Promise<void> {
  return new Promise((resolve) => onNextLoopTurn(resolve));
}

/** Runs `callback` on the event loop's next turn; for a caller on the request path, no promise is made. */
export function onNextLoopTurn(callback: () => void): void {
  if (typeof setImmediate === 'function') setImmediate(callback);
  else setTimeout(callback, 0);
}
