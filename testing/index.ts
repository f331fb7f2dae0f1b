/**
 * `pi-fold/testing`: what a custom storage deployment needs to prove its stores behave
 * like the built-in ones, runnable under any test runner.
 */
export { foldStoreConformance, type FoldStoreConformanceOptions, type StoreFactory } from './fold-store-conformance.ts';
export { evidenceStoreConformance, type EvidenceStoreConformanceOptions, type EvidenceStoreFactory } from './evidence-store-conformance.ts';
export { ConformanceFailure, type ConformanceHarness, HOSTILE_IDS, HOSTILE_SHAS } from './conformance-support.ts';
export { sampleFoldRecord, sampleEngineState } from './store-fixtures.ts';
export { retentionConformance, type RetentionConformanceOptions } from './retention-conformance.ts';
export { transcriptSourceConformance, type TranscriptSourceConformanceOptions, type TranscriptSourceSubject } from './transcript-source-conformance.ts';
export { projectionSinkConformance, type ProjectionSinkConformanceOptions, type ReceivedTraffic } from './projection-sink-conformance.ts';
export { costModelConformance, type CostModelConformanceOptions } from './cost-model-conformance.ts';
export { MemoryTranscriptSource } from './memory-transcript-source.ts';
