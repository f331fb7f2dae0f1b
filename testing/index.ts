/**
 * `pi-fold/testing`: what a custom storage deployment needs to prove its stores behave
 * like the built-in ones, runnable under any test runner.
 */

export { ConformanceFailure, type ConformanceHarness, HOSTILE_IDS, HOSTILE_SHAS } from './conformance-support.ts';
export { type CostModelConformanceOptions, costModelConformance } from './cost-model-conformance.ts';
export {
  type EvidenceStoreConformanceOptions,
  type EvidenceStoreFactory,
  evidenceStoreConformance,
} from './evidence-store-conformance.ts';
export { type FoldStoreConformanceOptions, foldStoreConformance, type StoreFactory } from './fold-store-conformance.ts';
export { MemoryTranscriptSource } from './memory-transcript-source.ts';
export {
  type ProjectionSinkConformanceOptions,
  projectionSinkConformance,
  type ReceivedTraffic,
} from './projection-sink-conformance.ts';
export { type RetentionConformanceOptions, retentionConformance } from './retention-conformance.ts';
export type { StoreDamageHooks, StoredDamageTarget } from './store-damage-conformance.ts';
export { sampleEngineState, sampleFoldRecord } from './store-fixtures.ts';
export type { StoreResourceOptions, UnansweringBackend } from './store-resource-conformance.ts';
export {
  type TranscriptSourceConformanceOptions,
  type TranscriptSourceSubject,
  transcriptSourceConformance,
} from './transcript-source-conformance.ts';
