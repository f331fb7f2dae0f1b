import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';

/** The hooks Pi runs between deciding to call the model and sending the request. */
const REQUEST_PATH_EVENTS: ReadonlySet<string> = new Set(['context', 'before_provider_request']);

/**
 * Times an extension's request-path handlers (`context`, and `before_provider_request`
 * where pi-fold checks it owns the window): wraps the ExtensionAPI it registers on, so the
 * milliseconds spent before each request can be handed to that request's row.
 */
export class HookTimer {
  private pendingMs = 0;

  /** The API to give the extension instead of Pi's own. */
  wrap(pi: ExtensionAPI): ExtensionAPI {
    return new Proxy(pi, {
      get: (target, property, receiver) => {
        if (property !== 'on') return Reflect.get(target, property, receiver);
        return (event: string, handler: (...args: unknown[]) => unknown) =>
          target.on(event as never, (REQUEST_PATH_EVENTS.has(event) ? this.timed(handler) : handler) as never);
      },
    });
  }

  /** Milliseconds accumulated since the last call (the hooks of the request being sent). */
  take(): number {
    const spent = this.pendingMs;
    this.pendingMs = 0;
    return spent;
  }

  private timed(handler: (...args: unknown[]) => unknown): (...args: unknown[]) => Promise<unknown> {
    return async (...args) => {
      const started = performance.now();
      try {
        return await handler(...args);
      } finally {
        this.pendingMs += performance.now() - started;
      }
    };
  }
}
