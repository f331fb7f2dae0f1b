import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';

/** What the hook timer collects: two series with one value per request, and totals over the run. */
export interface HookTimes {
  /** The `context` hook alone (mapping, the engine's projection, converting back). */
  readonly context: number[];
  /**
   * Every pi-fold handler that ran for the request: its `context` hook plus each other hook
   * (`tool_result`, `message_end`, `before_provider_request`, …) since the previous one. Work
   * that moves from one hook to another (evidence ingestion did, from `tool_result` into the
   * engine) moves within this sum, so it compares builds that put the work in different places.
   */
  readonly everyHook: number[];
  /** Milliseconds over the whole run in each hook other than `context`, by event name. */
  readonly otherHooks: Map<string, number>;
}

/** An empty set of series for `timeHooks`. */
export function emptyHookTimes(): HookTimes {
  return { context: [], everyHook: [], otherHooks: new Map() };
}

/** The other hooks' totals as one line, largest first: `<hook> <total> ms, …`, or `none`. */
export function otherHooksLine(times: HookTimes): string {
  const totals = [...times.otherHooks].sort((a, b) => b[1] - a[1]);
  return totals.length === 0 ? 'none' : totals.map(([event, ms]) => `${event} ${ms.toFixed(1)} ms`).join(', ');
}

type Handler = (...args: unknown[]) => unknown;

/**
 * Wrap the extension API so that every handler pi-fold registers is timed. A handler that
 * returns at once is not made async (the wrapper adds no promise, so no loop turn, that the
 * build itself does not have); an async one is timed until its promise settles, which is when
 * Pi goes on. A handler that throws is not timed: the run it belongs to has failed anyway.
 */
export function timeHooks(times: HookTimes): (pi: ExtensionAPI) => ExtensionAPI {
  let sinceContext = 0;
  const timeOther =
    (event: string, handler: Handler): Handler =>
    (...args) => {
      const started = performance.now();
      const count = () => {
        const elapsed = performance.now() - started;
        sinceContext += elapsed;
        times.otherHooks.set(event, (times.otherHooks.get(event) ?? 0) + elapsed);
      };
      const result = handler(...args);
      if (!(result instanceof Promise)) {
        count();
        return result;
      }
      return result.finally(count);
    };
  const timeContext =
    (handler: Handler): Handler =>
    async (...args) => {
      const started = performance.now();
      const result = await handler(...args);
      const elapsed = performance.now() - started;
      times.context.push(elapsed);
      times.everyHook.push(elapsed + sinceContext);
      sinceContext = 0;
      return result;
    };
  return (pi) =>
    new Proxy(pi, {
      get(target, property, receiver) {
        if (property !== 'on') return Reflect.get(target, property, receiver);
        return (event: string, handler: Handler) =>
          target.on(event as never, (event === 'context' ? timeContext(handler) : timeOther(event, handler)) as never);
      },
    });
}
