import { FoldError } from './fold-error.ts';

/**
 * docs/behaviour.md I6: the refusal of a request over the budget, saying which case it is: a commit the store
 * refused (`refusedStore`, its name) could have made room; otherwise no lossless fold can.
 */
export function budgetExceeded(input: {
  estimatedTokens: number;
  budgetTokens: number;
  request: number;
  refusedStore: string | undefined;
}): FoldError {
  const { estimatedTokens, budgetTokens, request, refusedStore } = input;
  const why =
    refusedStore !== undefined
      ? `the ${refusedStore} store refused the commit that would have made room`
      : 'no lossless fold can make room (pinned, protected or open material fills the window)';
  return new FoldError(
    'BUDGET.EXCEEDED',
    `the request would carry about ${estimatedTokens} tokens against a budget of ${budgetTokens}, and ${why}`,
    {
      details: { estimatedTokens, budgetTokens, request, commitRefusedByStore: refusedStore !== undefined },
    },
  );
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
