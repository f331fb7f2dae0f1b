import { loadOpenTelemetryApi } from '../adapters/backends/opentelemetry/index.ts';

/**
 * Start loading the optional peers a session's composition waits for (today
 * `@opentelemetry/api`, when the host installed it), so that a host registering pi-fold at
 * start-up does not pay the module load inside its first model request, where it would
 * delay that request by the whole import (`npm run bench:pi` shows it). Fire and forget; the load is shared. A session
 * opened before it ends does not wait for it (its telemetry is held until the API is there,
 * adapters/backends/opentelemetry/late-telemetry.ts); a load that failed is reported by the next
 * `createFoldRuntime`.
 */
export function preloadOptionalPeers(): void {
  loadOpenTelemetryApi().catch(() => undefined);
}
