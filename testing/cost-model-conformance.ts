import type { CostModel, PriceRates, RequestUsage } from '../ports/cost-model.port.ts';
import { type ConformanceHarness, check, checkEqual } from './conformance-support.ts';

export interface CostModelConformanceOptions {
  /** Prefix of every test name. @default 'CostModel conformance' */
  readonly label?: string;
}

const NO_USAGE: RequestUsage = { input: 0, cacheRead: 0, cacheWrite: 0, output: 0 };

function checkRates(rates: PriceRates, what: string): void {
  for (const key of ['input', 'cacheRead', 'cacheWrite', 'output'] as const) {
    check(
      Number.isFinite(rates[key]) && rates[key] >= 0,
      `${what}.${key} must be a finite, non-negative rate, got ${String(rates[key])}`,
    );
  }
}

/**
 * The behaviour every CostModel must have, runner-agnostic: estimates that are whole,
 * non-negative, deterministic and grow with the text; a sane default ratio; prices that are
 * zero for nothing, never negative, grow with every kind of token, and switch to the
 * long-context rates for the whole request above the boundary.
 */
export function costModelConformance(
  harness: ConformanceHarness,
  createModel: () => CostModel | Promise<CostModel>,
  options: CostModelConformanceOptions = {},
): void {
  const label = options.label ?? 'CostModel conformance';
  const define = (name: string, body: (model: CostModel) => Promise<void> | void) =>
    harness.test(`${label}: ${name}`, async () => body(await createModel()));

  define('declares v1 and a default chars-per-token ratio between 1 and 16', (model) => {
    checkEqual(model.specificationVersion, 'v1', 'specificationVersion');
    check(
      Number.isFinite(model.defaultCharsPerToken) &&
        model.defaultCharsPerToken >= 1 &&
        model.defaultCharsPerToken <= 16,
      `defaultCharsPerToken must be in [1, 16], got ${model.defaultCharsPerToken}`,
    );
  });

  define('estimates are whole, non-negative, deterministic, and grow with the text', (model) => {
    checkEqual(model.estimateTokens(''), 0, 'tokens of the empty text');
    const texts = ['a', 'hello world', '{"role":"user","content":"ünïcødé ✓"}', 'x'.repeat(10_000)];
    for (const text of texts) {
      const tokens = model.estimateTokens(text);
      check(
        Number.isInteger(tokens) && tokens >= 0,
        `estimateTokens(${text.length} chars) must be a whole number ≥ 0, got ${tokens}`,
      );
      checkEqual(model.estimateTokens(text), tokens, `a second estimate of ${text.length} chars`);
    }
    let previous = 0;
    for (const size of [10, 100, 1_000, 100_000]) {
      const tokens = model.estimateTokens('token '.repeat(size));
      check(tokens >= previous, `estimates must not shrink as text grows (${size} words: ${tokens} < ${previous})`);
      previous = tokens;
    }
    check(previous > 0, 'a long text is worth some tokens');
  });

  define('the price list names itself and holds finite, non-negative rates', (model) => {
    check(
      typeof model.priceList.name === 'string' && model.priceList.name.length > 0,
      'priceList.name must be a non-empty string',
    );
    checkRates(model.priceList.base, 'priceList.base');
    if (model.priceList.longContext !== undefined) {
      check(
        Number.isInteger(model.priceList.longContext.aboveTokens) && model.priceList.longContext.aboveTokens > 0,
        'longContext.aboveTokens must be a positive whole number',
      );
      checkRates(model.priceList.longContext.rates, 'priceList.longContext.rates');
    }
  });

  define('nothing costs nothing; prices are never negative and grow with every kind of token', (model) => {
    checkEqual(model.price(NO_USAGE), 0, 'price of a request that used nothing');
    const base: RequestUsage = { input: 1_000, cacheRead: 2_000, cacheWrite: 500, output: 300 };
    const basePrice = model.price(base);
    check(Number.isFinite(basePrice) && basePrice >= 0, `price must be finite and ≥ 0, got ${basePrice}`);
    for (const key of ['input', 'cacheRead', 'cacheWrite', 'output'] as const) {
      const more = model.price({ ...base, [key]: base[key] + 1_000 });
      check(more >= basePrice, `1,000 more ${key} tokens must not cost less (${more} < ${basePrice})`);
    }
  });

  define('above the long-context boundary the whole request is billed at the long-context rates', (model) => {
    const longContext = model.priceList.longContext;
    if (longContext === undefined) return;
    const usage: RequestUsage = { input: longContext.aboveTokens + 1, cacheRead: 0, cacheWrite: 0, output: 1_000 };
    const expected = (usage.input * longContext.rates.input + usage.output * longContext.rates.output) / 1_000_000;
    check(
      Math.abs(model.price(usage) - expected) <= 1e-9 * Math.max(1, expected),
      `price above the boundary: expected ${expected}, got ${model.price(usage)}`,
    );
    const below: RequestUsage = { ...usage, input: longContext.aboveTokens };
    const expectedBelow =
      (below.input * model.priceList.base.input + below.output * model.priceList.base.output) / 1_000_000;
    check(
      Math.abs(model.price(below) - expectedBelow) <= 1e-9 * Math.max(1, expectedBelow),
      `price at the boundary: expected ${expectedBelow}, got ${model.price(below)}`,
    );
  });
}
