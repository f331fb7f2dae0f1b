import { loadOpenTelemetryApi } from '../adapters/opentelemetry/index.ts';

/**
 * Start loading the optional peers a session's composition waits for (today
 * `@opentelemetry/api`, when the host installed it), so that a host registering pi-fold at
 * start-up does not pay the module load inside its first model request: loading it there
 * cost that request 40–75 ms in `npm run bench:pi`. Fire and forget; the load is shared, and a
 * load that fails is reported by the session that awaits it (`createFoldRuntime`).
 */
export function preloadOptionalPeers(): void {
  loadOpenTelemetryApi().catch(() => undefined);
}
