import { FoldError } from '../../core/fold-error.ts';
import { modelLimits, replyReserve } from '../../core/model-windows.ts';
import { PRICE_LISTS } from '../../core/price-lists.ts';

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
  readonly priceList: string;
  readonly note: string;
}

/**
 * The window the session really had: the recorded model's prompt limit as the cap, the limit
 * less the reply reserve as the budget, and the model's price list, each overridable. A cap
 * given alone brings its own budget (the same reserve below it), so `--cap 128000` is enough
 * for a model the catalog lacks. Refuses a budget above the cap: every runtime would plan for
 * prompts the provider refuses.
 */
export function resolveReplayWindow(recordedModel: string | undefined, overrides: ReplayWindowOverrides): ReplayWindow {
  if (overrides.priceList !== undefined && PRICE_LISTS[overrides.priceList] === undefined) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `unknown price list "${overrides.priceList}" (known: ${Object.keys(PRICE_LISTS).join(', ')})`,
    );
  }
  const limits = recordedModel === undefined ? undefined : modelLimits(recordedModel);
  const capTokens = overrides.capTokens ?? limits?.capTokens ?? FALLBACK_WINDOW.capTokens;
  const budgetTokens =
    overrides.budgetTokens ??
    (overrides.capTokens !== undefined
      ? capTokens - replyReserve(capTokens)
      : (limits?.budgetTokens ?? FALLBACK_WINDOW.budgetTokens));
  const priceList = overrides.priceList ?? limits?.priceList ?? FALLBACK_WINDOW.priceList;
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
  const origin =
    limits !== undefined
      ? `recorded model ${recordedModel} (catalog ${limits.matched}: prompt limit ${limits.capTokens}, price list ${limits.priceList})`
      : recordedModel !== undefined
        ? `recorded model ${recordedModel} is not in the catalog (core/price-lists.ts MODEL_WINDOWS): lab defaults, give --cap and --price-list for its real window`
        : 'the recording names no model: lab defaults, give --cap and --price-list for its real window';
  const note = `window: budget ${budgetTokens}, provider cap ${capTokens}, price list ${priceList}; from ${origin}${given.length > 0 ? `; overridden by ${given.join(', ')}` : ''}`;
  return { budgetTokens, capTokens, priceList, note };
}
