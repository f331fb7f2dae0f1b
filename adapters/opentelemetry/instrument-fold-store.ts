import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { OpenTelemetryApi } from './load-opentelemetry.ts';
import { ATTRIBUTES, METER_NAME, METRICS } from './telemetry-names.ts';

/** FoldStore operations that return a promise: each is timed. */
const TIMED = new Set(['putBlob', 'getBlob', 'hasBlob', 'putFold', 'getFold', 'listFolds', 'saveState', 'loadState', 'listSessions', 'blobInfo', 'deleteBlob', 'appendRequestLog', 'readRequestLog']);

/**
 * The same store, with the time of each operation recorded in `pi_fold.store.duration`
 * (seconds, by operation and store, with `error.type` on a failure). Capabilities and
 * optional members stay exactly as the store declares them.
 */
export function instrumentFoldStore(store: FoldStore, api: OpenTelemetryApi): FoldStore {
  const duration = api.metrics.getMeter(METER_NAME).createHistogram(METRICS.storeDuration, { unit: 's', description: 'Time of each fold store operation' });
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || !TIMED.has(property) || typeof value !== 'function') return value;
      return async (...parameters: unknown[]) => {
        const started = performance.now();
        const attributes = { [ATTRIBUTES.storeOperation]: property, [ATTRIBUTES.storeName]: target.name };
        try {
          const result = await (value as (...values: unknown[]) => Promise<unknown>).apply(target, parameters);
          duration.record((performance.now() - started) / 1000, attributes);
          return result;
        } catch (error) {
          duration.record((performance.now() - started) / 1000, { ...attributes, [ATTRIBUTES.errorType]: (error as { code?: string })?.code ?? 'Error' });
          throw error;
        }
      };
    },
  });
}
