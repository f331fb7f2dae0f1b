/** The part of `@opentelemetry/api` pi-fold uses (its global meter and tracer providers). */
export type OpenTelemetryApi = typeof import('@opentelemetry/api');

let loaded: Promise<OpenTelemetryApi | undefined> | undefined;

/**
 * `@opentelemetry/api` when the host installed it (an optional peer), else `undefined`: then
 * pi-fold emits nothing and costs nothing. Without an SDK registered the API is itself a no-op.
 */
export function loadOpenTelemetryApi(): Promise<OpenTelemetryApi | undefined> {
  loaded ??= import('@opentelemetry/api').then(
    (api) => api,
    (error: unknown) => {
      if ((error as { code?: unknown })?.code === 'ERR_MODULE_NOT_FOUND') return undefined;
      throw error;
    },
  );
  return loaded;
}
