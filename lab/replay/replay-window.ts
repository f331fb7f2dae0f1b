import { FoldError } from '../../core/fold-error.ts';
import { BUILT_IN_CATALOG, modelLimits, replyReserve } from '../../core/pricing/model-windows.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import type { ModelCatalog, PriceList } from '../../ports/cost-model.port.ts';

/** Used when the recording names no model the catalog knows (the lab's own defaults). */
export const FALLBACK_WINDOW = { budgetTokens: 272_000, capTokens: 372_000, priceList: 'gpt-5.6-ledger' } as const;

/** What the user asked for on the command line; each one overrides the recorded model's. */
export interface ReplayWindowOverrides {
  readonly priceList?: string;
  readonly budgetTokens?: number;
  readonly capTokens?: number;
}

/** The window, cap and prices a replay runs at, and a sentence saying where each came from. */
export interface ReplayWindow {
  readonly budgetTokens: number;
  readonly capTokens: number;
  /** The price list's name (a catalog entry's `provider/id`, or a key of `PRICE_LISTS`). */
  readonly priceList: string;
  readonly prices: PriceList;
  /** The catalog the recorded model was looked up in (`ModelCatalog.source`). */
  readonly catalog: string;
  readonly note: string;
}

/**
 * The window the session really had: the recorded model's prompt limit as the cap, the limit
 * less the reply reserve as the budget, and the model's price list, each from the catalog
 * (pi-ai's registry where installed, adapters/backends/pi-ai-catalog) and each overridable. A cap
 * given alone brings its own budget (the same reserve below it), so `--cap 128000` is enough
 * for a model the catalog lacks. Refuses a budget above the cap: every runtime would plan for
 * prompts the provider refuses.
 */
export function resolveReplayWindow(
  recordedModel: string | undefined,
  overrides: ReplayWindowOverrides,
  catalog: ModelCatalog = BUILT_IN_CATALOG,
): ReplayWindow {
  const named = overrides.priceList === undefined ? undefined : PRICE_LISTS[overrides.priceList];
  if (overrides.priceList !== undefined && named === undefined) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `unknown price list "${overrides.priceList}" (known: ${Object.keys(PRICE_LISTS).join(', ')})`,
    );
  }
  const limits = recordedModel === undefined ? undefined : modelLimits(recordedModel, catalog);
  const capTokens = overrides.capTokens ?? limits?.capTokens ?? FALLBACK_WINDOW.capTokens;
  const budgetTokens =
    overrides.budgetTokens ??
    (overrides.capTokens !== undefined
      ? capTokens - replyReserve(capTokens)
      : (limits?.budgetTokens ?? FALLBACK_WINDOW.budgetTokens));
  const prices = named ?? limits?.priceList ?? PRICE_LISTS[FALLBACK_WINDOW.priceList]!;
  if (budgetTokens > capTokens) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `the budget (${budgetTokens} tokens) is above the provider cap (${capTokens} tokens): the runtimes would plan prompts the provider refuses; lower --budget or raise --cap`,
      {
        details: { budgetTokens, capTokens },
      },
    );
  }
  const given = [
    overrides.budgetTokens !== undefined ? '--budget' : '',
    overrides.capTokens !== undefined ? '--cap' : '',
    overrides.priceList !== undefined ? '--price-list' : '',
  ].filter((flag) => flag.length > 0);
  const note = `window: budget ${budgetTokens}, provider cap ${capTokens}, price list ${prices.name}; from ${windowOrigin(recordedModel, limits, catalog)}${given.length > 0 ? `; overridden by ${given.join(', ')}` : ''}`;
  return { budgetTokens, capTokens, priceList: prices.name, prices, catalog: catalog.source, note };
}

function windowOrigin(
  recordedModel: string | undefined,
  limits: ReturnType<typeof modelLimits>,
  catalog: ModelCatalog,
): string {
  if (limits !== undefined)
    return `recorded model ${recordedModel} (${catalog.source}: ${limits.matched}, prompt limit ${limits.capTokens})`;
  const fallback = `the lab's defaults (budget ${FALLBACK_WINDOW.budgetTokens}, cap ${FALLBACK_WINDOW.capTokens}, price list ${FALLBACK_WINDOW.priceList}); give --cap and --price-list for its real window`;
  if (recordedModel === undefined) return `the recording names no model: ${fallback}`;
  return `recorded model ${recordedModel} is not in the catalog (${catalog.source}): ${fallback}`;
}
