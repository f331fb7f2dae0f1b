/**
 * `pi-fold/testing`: what a custom storage deployment needs to prove its stores behave
 * like the built-in ones, runnable under any test runner.
 */
export { foldStoreConformance, type FoldStoreConformanceOptions } from './fold-store-conformance.ts';
export { evidenceStoreConformance, type EvidenceStoreConformanceOptions } from './evidence-store-conformance.ts';
export { ConformanceFailure, type ConformanceHarness, HOSTILE_IDS, HOSTILE_SHAS } from './conformance-support.ts';
export { sampleFoldRecord, sampleEngineState } from './store-fixtures.ts';
export { retentionConformance, type RetentionConformanceOptions } from './retention-conformance.ts';
