export { loadOpenTelemetryApi, type OpenTelemetryApi } from './load-opentelemetry.ts';
export { OpenTelemetrySink } from './opentelemetry-sink.ts';
export { instrumentFoldStore } from './instrument-fold-store.ts';
export { ATTRIBUTES, METRICS, METER_NAME } from './telemetry-names.ts';
export { sessionTelemetry, type SessionTelemetry } from './session-telemetry.ts';
