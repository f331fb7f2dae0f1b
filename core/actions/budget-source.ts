import type { SessionView } from '../session/session-view.ts';
import { budgetForModel } from '../settings/settings.ts';
import { sameRequestContext } from '../state/stored-request-context.ts';

/**
 * Where the budget `status` reports comes from: this process's last request; the settings;
 * the context window of the last request, stored with a reopened session; or the model's
 * window the host reported before any request.
 */
export type BudgetSource = 'request' | 'settings' | 'last-request-context' | 'host-context';

/** The source of a known budget (`null` when the budget is unknown). */
export function budgetSource(session: SessionView, budget: number | null): BudgetSource | null {
  if (budget === null) return null;
  if (session.lastBudget !== undefined) return 'request';
  if (budgetForModel(session.settings, session.lastContext.model) !== undefined) return 'settings';
  return sameRequestContext(session.lastContext, session.memory.requestContext)
    ? 'last-request-context'
    : 'host-context';
}

/**
 * The words after the budget in `status`. A budget from a request of this process needs
 * none; before one, the agent or person is told what it rests on, so a stored window is not
 * taken for the model in use now.
 */
export function describeBudgetSource(source: BudgetSource | null): string {
  switch (source) {
    case 'settings':
      return ' (from settings)';
    case 'last-request-context':
      return " (from the last request's context window)";
    case 'host-context':
      return " (from the model's context window)";
    default:
      return '';
  }
}
