import type { FoldStore } from '../../../ports/fold-store.port.ts';
import type { ProjectionSink } from '../../../ports/projection-sink.port.ts';
import { instrumentFoldStore, timedFoldStore } from './instrument-fold-store.ts';
import { LateOpenTelemetrySink, lateStoreDurations } from './late-telemetry.ts';
import { loadedOpenTelemetryApi, loadOpenTelemetryApi } from './load-opentelemetry.ts';
import { OpenTelemetrySink } from './opentelemetry-sink.ts';

/** How one session reports to OpenTelemetry: its fold store timed, its projection sink wrapped. */
export interface SessionTelemetry {
  readonly observeStore: (store: FoldStore) => FoldStore;
  readonly observeSink: (inner: ProjectionSink | undefined) => ProjectionSink;
}

/**
 * The session's OpenTelemetry wiring, or undefined when `@opentelemetry/api` is not installed.
 * A session opened while the API is still loading does not wait for it (`late-telemetry.ts`);
 * one opened after the load failed is refused with the load's error.
 */
export async function sessionTelemetry(sessionId: string): Promise<SessionTelemetry | undefined> {
  const pending = loadOpenTelemetryApi();
  if (loadedOpenTelemetryApi() === undefined) {
    return {
      observeStore: (store) => timedFoldStore(store, lateStoreDurations(pending)),
      observeSink: (inner) => new LateOpenTelemetrySink(pending, sessionId, inner),
    };
  }
  // Settled: this resolves at once, or throws why the load failed.
  const api = await pending;
  if (api === undefined) return undefined;
  return {
    observeStore: (store) => instrumentFoldStore(store, api),
    observeSink: (inner) => new OpenTelemetrySink(api, sessionId, inner),
  };
}
