/** Room core/settings/: what a person or a host may set, resolved from defaults and refused by name. */

import { FoldError } from '../fold-error.ts';
import { servingBudget } from '../pricing/budget.ts';
import { refuseUnknownSettings } from './settings-keys.ts';
import { resolveSpillPolicy, type SpillPolicy } from './spill-policy.ts';

/** The band and granularity a person tunes (docs/behaviour.md B6.4). Set whole, never member by member. */
export interface Thresholds {
  /** Occupancy at which a commit fires. @default 0.80 */
  readonly maxTarget: number;
  /** Occupancy a commit folds down to. @default 0.40 */
  readonly minTarget: number;
  /** Visible unpinned roots that earn a consolidating parent. @default 10 */
  readonly consolidateAfter: number;
  /** Chars a fold must reach to be worth making; also the raw-gap floor. @default 8000 */
  readonly minFoldChars: number;
}

/**
 * When and how deep automatic commits land (docs/behaviour.md B3.2, B3.6; `docs/cost-scheduling.md`):
 * - `cost` (default): the trigger and aim that minimize expected dollars per request;
 * - `band`: the seed's fixed band, commit at `maxTarget`, fold down to `minTarget`;
 * - `immediate` (ablation): `cost`'s trigger and aim, but each due mark lands on its own request;
 * - `eager` (ablation): every closed unit folds at once, no floor.
 */
export type SchedulingMode = 'cost' | 'band' | 'immediate' | 'eager';

export const SCHEDULING_MODES: readonly SchedulingMode[] = ['cost', 'band', 'immediate', 'eager'];

/** Pi's native compaction keeps this many recent tokens raw after it compacts (`keepRecentTokens`). */
export const DEFAULT_RAW_FLOOR_TOKENS = 20_000;

export interface FoldSettings {
  readonly thresholds: Thresholds;
  /** Tokens this deployment may put into one request, net of output reservation (any model). */
  readonly providerInputBudget?: number;
  /**
   * Budgets for particular models, by model id (or `provider/id`); a session that switches
   * model mid-way is budgeted for the model of each request. Empty when one budget serves all.
   */
  readonly modelInputBudgets: ReadonlyMap<string, number>;
  /** Tool names whose batches the tool rung never cuts. */
  readonly blacklistAutoFoldTools: ReadonlySet<string>;
  /** The commit policy: `cost` (default), `band`, or the ablations `immediate` and `eager` (docs/behaviour.md B3.6). */
  readonly scheduling: SchedulingMode;
  /**
   * Tokens of the newest raw transcript that no automatic commit folds (the working-set
   * floor, docs/behaviour.md B3.2). Only the budget fence (I6), a person's `/fold` and `eager` reach inside it.
   * @default 20000
   */
  readonly rawFloorTokens: number;
  /** The agent tool's name as this host registers it, used in placeholders. */
  readonly toolName: string;
  /** When a tool result or tool-call argument is spilled to evidence at ingestion (docs/behaviour.md B6.2). */
  readonly spill: SpillPolicy;
}

/**
 * The settings a host writes (`createFoldRuntime({ settings })`, `createFolding`, `registerPiFold`):
 * every member optional, each with its default. A misspelt or removed name is a type error in
 * TypeScript and a `SETTINGS.UNKNOWN_OPTION` / `SETTINGS.DELETED_OPTION` FoldError at run time
 * (`resolveSettings`), so plain JavaScript callers are told too.
 */
export interface FoldSettingsInput {
  /** The band and granularity, set whole (docs/behaviour.md B6.4). @default DEFAULT_THRESHOLDS */
  readonly thresholds?: Thresholds;
  /**
   * Tokens one request may carry, net of output reservation: one number for every model, or a
   * table by model id (or `provider/id`) with an optional `"*"` for the rest.
   * @default the context window the host reports
   */
  readonly providerInputBudget?: number | Readonly<Record<string, number>>;
  /** Tool names whose batches the tool rung never cuts. @default none */
  readonly blacklistAutoFoldTools?: ReadonlySet<string> | readonly string[];
  /** The commit policy (docs/behaviour.md B3.6). @default 'cost' */
  readonly scheduling?: SchedulingMode;
  /** Tokens of the newest raw transcript no automatic commit folds; 0 turns the floor off. @default 20000 */
  readonly rawFloorTokens?: number;
  /** The agent tool's name as the host registers it (1-64 letters, digits, `_`, `-`). @default 'fold_context' */
  readonly toolName?: string;
  /**
   * When tool results and arguments are spilled to evidence, set whole (docs/behaviour.md B6.2).
   * @default DEFAULT_SPILL_POLICY
   */
  readonly spill?: SpillPolicy;
}

export const DEFAULT_THRESHOLDS: Thresholds = Object.freeze({
  maxTarget: 0.8,
  minTarget: 0.4,
  consolidateAfter: 10,
  minFoldChars: 8000,
});

/** Option names that once existed, refused with why they are gone. */
const DELETED_OPTIONS: Readonly<Record<string, string>> = {
  summarizer:
    'model-written summaries were removed: briefs are deterministic or supplied by the agent, so nothing is lost to a summary',
  summarizeContextSpan: 'model-written summaries were removed: briefs are deterministic or supplied by the agent',
  guidance:
    'the runtime now cuts every closed unit itself and always tells the agent with one notice; there is nothing to switch',
  freshTail:
    'fresh-tail protection was removed: open units never fold and commits stop at minTarget, which protects the fresh end structurally',
};

const THRESHOLD_KEYS = ['maxTarget', 'minTarget', 'consolidateAfter', 'minFoldChars'] as const;
// A record over FoldSettingsInput's keys, so a setting added to the type and not here (or the
// reverse) fails to compile; the run-time check and the type cannot drift apart.
const OPTION_NAMES: Readonly<Record<keyof FoldSettingsInput, true>> = {
  thresholds: true,
  providerInputBudget: true,
  blacklistAutoFoldTools: true,
  scheduling: true,
  rawFloorTokens: true,
  toolName: true,
  spill: true,
};
const OPTION_KEYS = Object.keys(OPTION_NAMES) as readonly (keyof FoldSettingsInput)[];

/** Scheduling names that once meant something else, refused with what to write now. */
const RENAMED_SCHEDULING: Readonly<Record<string, string>> = {
  epoch:
    'scheduling "epoch" was split in two: write "cost" (the default: commits timed and sized by expected dollars) or "band" (the fixed maxTarget/minTarget band epoch used to run)',
};

/** Smallest minFoldChars accepted: below it a placeholder costs about what it saves. */
export const MIN_FOLD_CHARS_FLOOR = 1000;

/**
 * Validate user thresholds as one object. An impossible policy is refused by name, never
 * clamped, so what runs is exactly what was asked for.
 */
export function resolveThresholds(input: unknown): Thresholds {
  if (input === undefined) return DEFAULT_THRESHOLDS;
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid('thresholds must be an object with maxTarget, minTarget, consolidateAfter and minFoldChars');
  }
  const record = input as Record<string, unknown>;
  refuseUnknownSettings(record, THRESHOLD_KEYS, 'thresholds', DELETED_OPTIONS);
  const missing = THRESHOLD_KEYS.filter((key) => record[key] === undefined);
  if (missing.length > 0) {
    throw invalid(`thresholds are set whole: missing ${missing.join(', ')}`);
  }
  const thresholds = {
    maxTarget: record.maxTarget,
    minTarget: record.minTarget,
    consolidateAfter: record.consolidateAfter,
    minFoldChars: record.minFoldChars,
  };
  const { maxTarget, minTarget, consolidateAfter, minFoldChars } = thresholds;
  if (!isFiniteNumber(maxTarget) || maxTarget <= 0 || maxTarget > 1) {
    throw invalid(`maxTarget must be a number in (0, 1], got ${describe(maxTarget)}`, 'maxTarget');
  }
  if (!isFiniteNumber(minTarget) || minTarget < 0 || minTarget >= 1) {
    throw invalid(`minTarget must be a number in [0, 1), got ${describe(minTarget)}`, 'minTarget');
  }
  if (minTarget >= maxTarget) {
    throw invalid(
      `minTarget (${minTarget}) must be below maxTarget (${maxTarget}): a commit could never reach its aim`,
      'minTarget',
    );
  }
  if (!Number.isInteger(consolidateAfter) || (consolidateAfter as number) < 2) {
    throw invalid(
      `consolidateAfter must be an integer of at least 2, got ${describe(consolidateAfter)}`,
      'consolidateAfter',
    );
  }
  if (!Number.isInteger(minFoldChars) || (minFoldChars as number) < MIN_FOLD_CHARS_FLOOR) {
    throw invalid(
      `minFoldChars must be an integer of at least ${MIN_FOLD_CHARS_FLOOR}, got ${describe(minFoldChars)}`,
      'minFoldChars',
    );
  }
  return Object.freeze({
    maxTarget,
    minTarget,
    consolidateAfter: consolidateAfter as number,
    minFoldChars: minFoldChars as number,
  });
}

/**
 * Validate every option; unknown and deleted names are refused. Takes `unknown` on purpose: it
 * is the run-time check behind the typed `FoldSettingsInput`, and also reads parsed JSON.
 */
export function resolveSettings(input: unknown = {}): FoldSettings {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid('settings must be an object');
  }
  const record = input as Record<string, unknown>;
  refuseUnknownSettings(record, OPTION_KEYS, '', DELETED_OPTIONS);
  const thresholds = resolveThresholds(record.thresholds);
  const spill = resolveSpillPolicy(record.spill);
  const { budget, byModel } = resolveBudgets(record.providerInputBudget);
  const blacklist = record.blacklistAutoFoldTools ?? new Set<string>();
  const blacklistNames = blacklist instanceof Set ? [...blacklist] : Array.isArray(blacklist) ? blacklist : undefined;
  if (blacklistNames === undefined || !blacklistNames.every((name) => typeof name === 'string' && name.length > 0)) {
    throw invalid('blacklistAutoFoldTools must be a Set or array of tool names', 'blacklistAutoFoldTools');
  }
  const scheduling = resolveScheduling(record.scheduling);
  const rawFloorTokens = record.rawFloorTokens ?? DEFAULT_RAW_FLOOR_TOKENS;
  if (typeof rawFloorTokens !== 'number' || !Number.isInteger(rawFloorTokens) || rawFloorTokens < 0) {
    throw invalid(
      `rawFloorTokens must be a whole number of tokens (0 turns the floor off), got ${describe(rawFloorTokens)}`,
      'rawFloorTokens',
    );
  }
  const toolName = record.toolName ?? 'fold_context';
  if (typeof toolName !== 'string' || !/^[A-Za-z0-9_-]{1,64}$/.test(toolName)) {
    throw invalid(`toolName must be 1-64 letters, digits, _ or -, got ${describe(toolName)}`, 'toolName');
  }
  return Object.freeze({
    thresholds,
    ...(budget === undefined ? {} : { providerInputBudget: budget }),
    modelInputBudgets: byModel,
    blacklistAutoFoldTools: new Set(blacklistNames as string[]),
    scheduling,
    rawFloorTokens,
    toolName,
    spill,
  });
}

function resolveScheduling(input: unknown): SchedulingMode {
  if (input === undefined) return 'cost';
  if (typeof input === 'string' && input in RENAMED_SCHEDULING) {
    throw new FoldError('SETTINGS.DELETED_OPTION', RENAMED_SCHEDULING[input]!, { details: { option: 'scheduling' } });
  }
  if (!(SCHEDULING_MODES as readonly unknown[]).includes(input)) {
    throw invalid(
      `scheduling must be one of ${SCHEDULING_MODES.map((mode) => `"${mode}"`).join(', ')}, got ${describe(input)} (the old "immediate", every closed unit folded at once, is now "eager")`,
      'scheduling',
    );
  }
  return input as SchedulingMode;
}

/** Key of the per-model table that serves models it does not name. */
export const ANY_MODEL = '*';

/**
 * `providerInputBudget` is one number for every model, or a table by model id with an
 * optional "*" for the rest: `{ "gpt-5.6": 272000, "small-model": 120000, "*": 150000 }`.
 */
function resolveBudgets(input: unknown): { budget: number | undefined; byModel: ReadonlyMap<string, number> } {
  if (input === undefined) return { budget: undefined, byModel: new Map() };
  if (typeof input !== 'object' || input === null || input instanceof Map)
    return { budget: requireBudget(input, 'providerInputBudget'), byModel: new Map() };
  if (Array.isArray(input))
    throw invalid(
      'providerInputBudget must be a number of tokens or an object of budgets by model id',
      'providerInputBudget',
    );
  const entries = Object.entries(input as Record<string, unknown>);
  if (entries.length === 0)
    throw invalid(
      'providerInputBudget names no model; give a number, or at least one model id (or "*")',
      'providerInputBudget',
    );
  const byModel = new Map<string, number>();
  let budget: number | undefined;
  for (const [modelId, value] of entries) {
    if (modelId.length === 0 || modelId.length > 200)
      throw invalid(
        `providerInputBudget keys must be model ids of 1-200 chars, got ${describe(modelId)}`,
        'providerInputBudget',
      );
    const tokens = requireBudget(value, `providerInputBudget[${JSON.stringify(modelId)}]`);
    if (modelId === ANY_MODEL) budget = tokens;
    else byModel.set(modelId, tokens);
  }
  return { budget, byModel };
}

function requireBudget(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1000) {
    throw invalid(`${field} must be an integer of at least 1000 tokens, got ${describe(value)}`, 'providerInputBudget');
  }
  return value;
}

/** The budget set for `modelId` (exact id, then `provider/id`), else the one for every model. */
export function budgetForModel(
  settings: FoldSettings,
  model: { readonly id?: string; readonly provider?: string } | undefined,
): number | undefined {
  if (model?.id !== undefined && settings.modelInputBudgets.size > 0) {
    // The more specific key wins: `provider/id` names one deployment, a bare id any provider's.
    const exact =
      (model.provider === undefined ? undefined : settings.modelInputBudgets.get(`${model.provider}/${model.id}`)) ??
      settings.modelInputBudgets.get(model.id);
    if (exact !== undefined) return exact;
  }
  return settings.providerInputBudget;
}

/**
 * The budget of one request: the model's entry, else the one budget, else the window the
 * host reports. A table that does not name the model (and has no "*") with no window to
 * fall back on is refused by name rather than guessed.
 */
export function requestBudget(
  settings: FoldSettings,
  context: { readonly model?: { readonly id?: string; readonly provider?: string }; readonly contextWindow?: number },
): number {
  const budget = budgetForModel(settings, context.model);
  if (budget === undefined && settings.modelInputBudgets.size > 0 && context.contextWindow === undefined) {
    const model =
      context.model?.id === undefined
        ? 'a request that names no model'
        : `model ${JSON.stringify(context.model.provider === undefined ? context.model.id : `${context.model.provider}/${context.model.id}`)}`;
    const named = [...settings.modelInputBudgets.keys()].map((key) => JSON.stringify(key)).join(', ');
    throw invalid(
      `no serving budget for ${model}: providerInputBudget names only ${named}; add it (by id or provider/id) or a "*" entry`,
      'providerInputBudget',
    );
  }
  return servingBudget(budget, context.contextWindow);
}

function invalid(message: string, option?: string): FoldError {
  return new FoldError('SETTINGS.INVALID', message, option === undefined ? {} : { details: { option } });
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.slice(0, 40));
  if (value === null || value === undefined) return String(value);
  if (typeof value === 'object') return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}
