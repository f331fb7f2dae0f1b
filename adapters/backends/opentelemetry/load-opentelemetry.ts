/** The part of `@opentelemetry/api` pi-fold uses (its global meter and tracer providers). */
export type OpenTelemetryApi = typeof import('@opentelemetry/api');

let loaded: Promise<OpenTelemetryApi | undefined> | undefined;
/** What the load came to, once it has. */
export type SettledLoad = { readonly api: OpenTelemetryApi | undefined } | { readonly error: unknown };

let settled: SettledLoad | undefined;

/**
 * `@opentelemetry/api` when the host installed it (an optional peer), else `undefined`: then
 * pi-fold emits nothing and costs nothing. Without an SDK registered the API is itself a no-op.
 */
export function loadOpenTelemetryApi(): Promise<OpenTelemetryApi | undefined> {
  if (loaded === undefined) {
    loaded = import('@opentelemetry/api').then(
      (api) => api,
      (error: unknown) => {
        // Node's ESM loader says ERR_MODULE_NOT_FOUND; Pi's extension loader (jiti) resolves the
        // bundled extension's imports CommonJS-style and says MODULE_NOT_FOUND.
        const code = (error as { code?: unknown })?.code;
        if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') return undefined;
        throw error;
      },
    );
    loaded.then(
      (api) => {
        settled = { api };
      },
      (error: unknown) => {
        settled = { error };
      },
    );
  }
  return loaded;
}

/**
 * What the load came to, without waiting: `{ api }` (undefined when the API is not
 * installed), `{ error }` when it failed, or undefined while it is under way (or not begun).
 */
export function loadedOpenTelemetryApi(): SettledLoad | undefined {
  return settled;
}
