/**
 * `call`, timed: each call's wall time in milliseconds goes into `sink`, whether it resolves or
 * throws. The benchmarks wrap the one method they measure with it.
 */
export function timeCalls<A extends unknown[], R>(
  call: (...args: A) => Promise<R>,
  sink: number[],
): (...args: A) => Promise<R> {
  return async (...args: A) => {
    const started = performance.now();
    try {
      return await call(...args);
    } finally {
      sink.push(performance.now() - started);
    }
  };
}
