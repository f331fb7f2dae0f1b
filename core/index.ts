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
export type { TelemetryView } from './commit/apply/telemetry.ts';
export type { CacheLossSummary } from './commit/policy/cache-survival.ts';
export type { CommitReason } from './commit/policy/decision.ts';
export type { SchedulerView } from './commit/policy/scheduler.ts';
export { FOLD_ERROR_CODES, FoldError, type FoldErrorCode, type FoldErrorOptions } from './fold-error.ts';
export {
  FoldRuntime,
  type FoldRuntimeDependencies,
  type ProjectionResult,
  type RequestContext,
} from './fold-runtime.ts';
export { BRIEF_MAX_CHARS } from './folds/briefs.ts';
export type { FoldLatticeView, PlacedFold } from './folds/fold-lattice.ts';
export { createCharsCostModel } from './pricing/chars-cost-model.ts';
export type { EstimatorView } from './pricing/occupancy-estimator.ts';
export { DEFAULT_PRICE_LIST, PRICE_LISTS } from './pricing/price-lists.ts';
export type { SessionView } from './session/session-view.ts';
export {
  DEFAULT_THRESHOLDS,
  type FoldSettings,
  type FoldSettingsInput,
  resolveSettings,
  resolveThresholds,
  type SchedulingMode,
  type Thresholds,
} from './settings/settings.ts';
export { DEFAULT_SPILL_POLICY, resolveSpillPolicy, type SpillPolicy } from './settings/spill-policy.ts';
export { TOOL_OFFERS, type ToolOffer } from './settings/tool-offer.ts';
export type { SpillBookView } from './spill/spill-book.ts';
export type { EngineMemoryView } from './state/engine-memory.ts';
export type { ForcedCommit, ForcedCommitCause } from './state/forced-commit.ts';
export { readFoldSource, type SourceEntry } from './store/fold-source.ts';
export type { TranscriptIndexView, Unit, UnitKind } from './transcript/transcript-index.ts';
