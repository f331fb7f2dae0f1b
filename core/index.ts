/**
 * `pi-fold` and `pi-fold/core`: the engine as a host names it (the runtime facade, its read-only
 * view, settings, errors, actions, the default cost model and the port types). Helpers the
 * engine uses on itself (hashing, ids, budget arithmetic) are in `pi-fold/internal`.
 */

export type * from '../ports/index.ts';
export { ACTION_NAMES, type ActionName, type FoldAction, parseAction } from './actions/action-arguments.ts';
export type { ActionAnswer, ActionCaller, CurationNumbers } from './actions/action-context.ts';
export type { BudgetSource } from './actions/budget-source.ts';
export { type StatusReport, statusReport } from './actions/status-action.ts';
export { BRIEF_MAX_CHARS } from './briefs.ts';
export { createCharsCostModel } from './chars-cost-model.ts';
export type { CacheLossSummary } from './commit/policy/cache-survival.ts';
export type { CommitReason, ForcedCommit, ForcedCommitCause } from './commit/policy/decision.ts';
export { FOLD_ERROR_CODES, FoldError, type FoldErrorCode, type FoldErrorOptions } from './fold-error.ts';
export type { PlacedFold } from './fold-lattice.ts';
export {
  FoldRuntime,
  type FoldRuntimeDependencies,
  type ProjectionResult,
  type RequestContext,
} from './fold-runtime.ts';
export { readFoldSource, type SourceEntry } from './fold-source.ts';
export { DEFAULT_PRICE_LIST, PRICE_LISTS } from './price-lists.ts';
export type {
  EngineMemoryView,
  EstimatorView,
  FoldLatticeView,
  SchedulerView,
  SessionView,
  SpillBookView,
  TelemetryView,
  TranscriptIndexView,
} from './session-view.ts';
export {
  DEFAULT_THRESHOLDS,
  type FoldSettings,
  type FoldSettingsInput,
  resolveSettings,
  resolveThresholds,
  type SchedulingMode,
  type Thresholds,
} from './settings.ts';
export { DEFAULT_SPILL_POLICY, resolveSpillPolicy, type SpillPolicy } from './spill/spill-policy.ts';
export { TOOL_OFFERS, type ToolOffer } from './tool-offer.ts';
export type { Unit, UnitKind } from './transcript-index.ts';
