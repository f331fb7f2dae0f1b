export { instrumentFoldStore } from './instrument-fold-store.ts';
export { loadOpenTelemetryApi, type OpenTelemetryApi } from './load-opentelemetry.ts';
export { OpenTelemetrySink } from './opentelemetry-sink.ts';
export { type SessionTelemetry, sessionTelemetry } from './session-telemetry.ts';
export { ATTRIBUTES, METER_NAME, METRICS } from './telemetry-names.ts';
