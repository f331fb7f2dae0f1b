import { FoldError } from '../core/fold-error.ts';
import type { CostModel, PriceList, PriceRates } from '../ports/cost-model.port.ts';
import { describeValue } from './option-checks.ts';

/**
 * Checks on a host's `costModel` option (createFoldRuntime, createFolding, registerPiFold),
 * run before anything is built. The commit scheduler decides when to commit from this
 * model's price list alone (docs/cost-scheduling.md), so a list with a missing or negative
 * rate would make it decide on nonsense without a word; it is refused here by name instead.
 */

const RATE_NAMES = ['input', 'cacheRead', 'cacheWrite', 'output'] as const satisfies readonly (keyof PriceRates)[];

/** Refuse a cost model that is not a CostModel v1 with a usable price list (`SETTINGS.INVALID`, naming the field). */
export function assertCostModelOption(value: unknown, who: string): asserts value is CostModel {
  if (value === undefined) return;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid(
      `${who}: costModel must be a CostModel object (e.g. createCharsCostModel({ priceList })), got ${describeValue(value)}`,
      'costModel',
    );
  }
  const model = value as Record<string, unknown>;
  if (model.specificationVersion !== 'v1') {
    throw invalid(
      `${who}: costModel.specificationVersion must be 'v1', got ${describeValue(model.specificationVersion)}`,
      'costModel.specificationVersion',
    );
  }
  for (const method of ['estimateTokens', 'price'] as const) {
    if (typeof model[method] !== 'function')
      throw invalid(
        `${who}: costModel.${method} must be a function, got ${describeValue(model[method])}`,
        `costModel.${method}`,
      );
  }
  if (model.priceListFor !== undefined && typeof model.priceListFor !== 'function') {
    throw invalid(
      `${who}: costModel.priceListFor, when given, must be a function, got ${describeValue(model.priceListFor)}`,
      'costModel.priceListFor',
    );
  }
  const charsPerToken = model.defaultCharsPerToken;
  if (typeof charsPerToken !== 'number' || !Number.isFinite(charsPerToken) || charsPerToken < 1 || charsPerToken > 16) {
    throw invalid(
      `${who}: costModel.defaultCharsPerToken must be a number between 1 and 16, got ${describeValue(charsPerToken)}`,
      'costModel.defaultCharsPerToken',
    );
  }
  assertPriceList(model.priceList, `${who}: costModel.priceList`, 'costModel.priceList');
}

/**
 * Refuse a price list with a missing name, a rate that is not a finite number ≥ 0, or a bad
 * long-context line or cache lifetime.
 */
export function assertPriceList(value: unknown, label: string, field: string): asserts value is PriceList {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(`${label} must be a price list object, got ${describeValue(value)}`, field);
  const list = value as Record<string, unknown>;
  if (typeof list.name !== 'string' || list.name.length === 0)
    throw invalid(`${label}.name must be a non-empty string, got ${describeValue(list.name)}`, `${field}.name`);
  assertRates(list.base, `${label}.base`, `${field}.base`);
  if (list.longContext !== undefined) {
    const line = list.longContext as Record<string, unknown> | null;
    if (typeof line !== 'object' || line === null)
      throw invalid(
        `${label}.longContext must be { aboveTokens, rates }, got ${describeValue(line)}`,
        `${field}.longContext`,
      );
    if (typeof line.aboveTokens !== 'number' || !Number.isInteger(line.aboveTokens) || line.aboveTokens < 1) {
      throw invalid(
        `${label}.longContext.aboveTokens must be a whole number of tokens of at least 1, got ${describeValue(line.aboveTokens)}`,
        `${field}.longContext.aboveTokens`,
      );
    }
    assertRates(line.rates, `${label}.longContext.rates`, `${field}.longContext.rates`);
  }
  const lifetime = list.cacheLifetimeSeconds;
  if (lifetime !== undefined && (typeof lifetime !== 'number' || !Number.isFinite(lifetime) || lifetime <= 0)) {
    throw invalid(
      `${label}.cacheLifetimeSeconds, when given, must be a number of seconds above 0, got ${describeValue(lifetime)}`,
      `${field}.cacheLifetimeSeconds`,
    );
  }
}

function assertRates(value: unknown, label: string, field: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw invalid(
      `${label} must be { input, cacheRead, cacheWrite, output } in dollars per million tokens, got ${describeValue(value)}`,
      field,
    );
  const rates = value as Record<string, unknown>;
  for (const name of RATE_NAMES) {
    const rate = rates[name];
    if (typeof rate !== 'number' || !Number.isFinite(rate) || rate < 0) {
      throw invalid(
        `${label}.${name} must be a finite number of dollars per million tokens, at least 0, got ${describeValue(rate)}`,
        `${field}.${name}`,
      );
    }
  }
}

function invalid(message: string, option: string): FoldError {
  return new FoldError('SETTINGS.INVALID', message, { details: { option } });
}
