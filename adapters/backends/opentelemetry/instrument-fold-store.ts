import type { Attributes } from '@opentelemetry/api';
import type { FoldStore } from '../../../ports/fold-store.port.ts';
import type { OpenTelemetryApi } from './load-opentelemetry.ts';
import { ATTRIBUTES, METER_NAME, METRICS } from './telemetry-names.ts';

/** FoldStore operations that return a promise: each is timed. */
const TIMED = new Set([
  'putBlob',
  'getBlob',
  'hasBlob',
  'putFold',
  'getFold',
  'listFolds',
  'saveState',
  'loadState',
  'listSessions',
  'blobInfo',
  'deleteBlob',
  'appendRequestLog',
  'readRequestLog',
]);

/** Takes one store operation's time (seconds) with its attributes. */
export type StoreDurationRecorder = (seconds: number, attributes: Attributes) => void;

/** `pi_fold.store.duration` on the API's global meter provider. */
export function storeDurationHistogram(api: OpenTelemetryApi): StoreDurationRecorder {
  const duration = api.metrics
    .getMeter(METER_NAME)
    .createHistogram(METRICS.storeDuration, { unit: 's', description: 'Time of each fold store operation' });
  return (seconds, attributes) => duration.record(seconds, attributes);
}

/**
 * The same store, with the time of each operation recorded in `pi_fold.store.duration`
 * (seconds, by operation and store, with `error.type` on a failure). Capabilities and
 * optional members stay exactly as the store declares them.
 */
export function instrumentFoldStore(store: FoldStore, api: OpenTelemetryApi): FoldStore {
  return timedFoldStore(store, storeDurationHistogram(api));
}

/** The same store, each timed operation handed to `record` (see `instrumentFoldStore`). */
export function timedFoldStore(store: FoldStore, record: StoreDurationRecorder): FoldStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || !TIMED.has(property) || typeof value !== 'function') return value;
      return async (...parameters: unknown[]) => {
        const started = performance.now();
        const attributes = { [ATTRIBUTES.storeOperation]: property, [ATTRIBUTES.storeName]: target.name };
        try {
          const result = await (value as (...values: unknown[]) => Promise<unknown>).apply(target, parameters);
          record((performance.now() - started) / 1000, attributes);
          return result;
        } catch (error) {
          record((performance.now() - started) / 1000, {
            ...attributes,
            [ATTRIBUTES.errorType]: (error as { code?: string })?.code ?? 'Error',
          });
          throw error;
        }
      };
    },
  });
}
