import { FoldError } from '../fold-error.ts';
import type { StrayResults } from '../transcript/transcript-index.ts';
import { describeMaterial, type WindowMaterial } from '../transcript/window-material.ts';

/**
 * docs/behaviour.md I6: the refusal of a request over the budget, saying which case it is: a commit the store
 * refused (`refusedStore`, its name) could have made room; otherwise no lossless fold can. A store
 * failure that names its own remedy (`storeRemedy`: a local limit such as too many open files)
 * is quoted with it, instead of the advice to wait for the store.
 */
export function budgetExceeded(input: {
  estimatedTokens: number;
  budgetTokens: number;
  request: number;
  refusedStore: string | undefined;
  /** The remedy the store's refusal named, when it named one. */
  storeRemedy?: string;
  /** Results held raw because they answer no open call; named when they are part of the cause. */
  strayResults?: StrayResults;
  /** What the refused window holds: when given, the refusal names exactly that. */
  material?: WindowMaterial;
}): FoldError {
  const { estimatedTokens, budgetTokens, request, refusedStore, strayResults, material, storeRemedy } = input;
  const why =
    refusedStore !== undefined
      ? `the ${refusedStore} store refused the commit that would have made room`
      : material !== undefined
        ? `no lossless fold can make room: the window holds ${describeMaterial(material)}${firstStray(strayResults)}`
        : `no lossless fold can make room (${heldRawMaterial(strayResults)} fills the window)`;
  // What helps differs: an outage passes by itself, a window of pinned or open material does not,
  // and unpinning helps only a window that holds pins.
  const remedy =
    refusedStore !== undefined
      ? (storeRemedy ??
        `send it again once the ${refusedStore} store accepts writes (free its disk or bring it back): the commit lands then and nothing is lost meanwhile`)
      : material === undefined || material.pinned > 0
        ? 'unpin entries, or start a new session'
        : 'start a new session, or give it a larger budget (providerInputBudget)';
  return new FoldError(
    'BUDGET.EXCEEDED',
    `the request would carry about ${estimatedTokens} tokens against a budget of ${budgetTokens}, and ${why}`,
    {
      details: {
        estimatedTokens,
        budgetTokens,
        request,
        remedy,
        commitRefusedByStore: refusedStore !== undefined,
        ...(strayResults !== undefined && strayResults.count > 0 ? { strayResults: strayResults.count } : {}),
        ...(material !== undefined ? { windowChars: { ...material } } : {}),
      },
    },
  );
}

// docs/behaviour.md I3: a result with no call before it cannot fold without being stranded, so
// it stays raw like protected material; a host that never pinned anything must hear which.
function heldRawMaterial(stray: StrayResults | undefined): string {
  if (stray === undefined || stray.count === 0) return 'pinned, protected or open material';
  return `${stray.count} tool result${stray.count === 1 ? '' : 's'} answering no call made just before ${stray.count === 1 ? 'it' : 'them'} (${stray.chars} chars, first entry "${stray.firstEntryId}"), which cannot fold without being stranded, with any pinned, protected or open material`;
}

function firstStray(stray: StrayResults | undefined): string {
  if (stray === undefined || stray.count === 0) return '';
  return ` (${stray.count} stray tool result${stray.count === 1 ? '' : 's'}, first entry "${stray.firstEntryId}")`;
}

/** Output reservation taken out of a model window when no explicit budget is given. */
export function outputReservation(contextWindow: number): number {
  return Math.min(16_384, Math.floor(0.1 * contextWindow));
}

/**
 * The serving budget: the single denominator of every ratio. An explicit
 * `providerInputBudget` is used as given; otherwise the window less its output reservation.
 */
export function servingBudget(providerInputBudget: number | undefined, contextWindow: number | undefined): number {
  if (providerInputBudget !== undefined) return providerInputBudget;
  if (contextWindow === undefined || !Number.isFinite(contextWindow) || contextWindow < 1000) {
    throw new FoldError(
      'SETTINGS.INVALID',
      'no serving budget: set providerInputBudget or let the host report the model context window (at least 1000 tokens)',
      {
        details: { contextWindow: contextWindow ?? null },
      },
    );
  }
  return contextWindow - outputReservation(contextWindow);
}
