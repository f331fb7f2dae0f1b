/**
 * `pi-fold` and `pi-fold/core`: the engine as a host names it (the runtime facade, its read-only
 * view, settings, errors, actions, the default cost model and the port types). Helpers the
 * engine uses on itself (hashing, ids, budget arithmetic) are in `pi-fold/internal`.
 */
export { FoldError, FOLD_ERROR_CODES, type FoldErrorCode, type FoldErrorOptions } from './fold-error.ts';
export { FoldRuntime, type FoldRuntimeDependencies, type ProjectionResult, type RequestContext } from './fold-runtime.ts';
export type { SessionView, TranscriptIndexView, FoldLatticeView, EngineMemoryView, EstimatorView, TelemetryView, SpillBookView, SchedulerView } from './session-view.ts';
export type { PlacedFold } from './fold-lattice.ts';
export type { Unit, UnitKind } from './transcript-index.ts';
export type { CommitReason, ForcedCommit, ForcedCommitCause } from './commit-decision.ts';
export { resolveSettings, resolveThresholds, DEFAULT_THRESHOLDS, type FoldSettings, type FoldSettingsInput, type Thresholds, type SchedulingMode } from './settings.ts';
export { DEFAULT_SPILL_POLICY, resolveSpillPolicy, type SpillPolicy } from './spill/spill-policy.ts';
export { ACTION_NAMES, parseAction, type FoldAction, type ActionName } from './actions/action-arguments.ts';
export type { ActionAnswer, ActionCaller, CurationNumbers } from './actions/action-context.ts';
export { statusReport, type StatusReport } from './actions/status-action.ts';
export { createCharsCostModel } from './chars-cost-model.ts';
export { PRICE_LISTS, DEFAULT_PRICE_LIST } from './price-lists.ts';
export { BRIEF_MAX_CHARS } from './briefs.ts';
export { TOOL_OFFERS, type ToolOffer } from './tool-offer.ts';
export type * from '../ports/index.ts';
export { readFoldSource, type SourceEntry } from './fold-source.ts';
