/** Room core/actions/: the actions the agent or a person may take, parsed, checked and run. */

import type { SessionState } from '../session/session-state.ts';
import { sessionView } from '../session/session-view.ts';
import { type FoldAction, parseAction } from './action-arguments.ts';
import {
  type ActionAnswer,
  type ActionCaller,
  type ActionContext,
  type ActionOutcome,
  actionContextOf,
  curationNumbers,
  describeNumbers,
} from './action-context.ts';
import { briefAction, pinAction, reboundaryAction, unmarkAction, unpinAction } from './curation-actions.ts';
import { peekAction } from './peek-action.ts';
import { searchAction } from './search-action.ts';
import { statusAction } from './status-action.ts';
import { expandAction, refoldAction } from './window-actions.ts';

export type { ActionAnswer, ActionCaller, ActionOutcome, CurationNumbers } from './action-context.ts';

/** An action's answer and its text's UTF-8 length (the size telemetry reports). */
export interface ExecutedAction {
  readonly answer: ActionAnswer;
  readonly answerBytes: number;
}

/**
 * Validate and run one action. A refusal leaves state exactly as it was: the decisions are
 * taken as one value first and put back whole if anything fails, including the state save.
 */
export async function executeAction(
  session: SessionState,
  persist: () => Promise<void>,
  request: unknown,
  caller: ActionCaller,
): Promise<ExecutedAction> {
  const action = parseAction(request);
  const reads = action.action === 'status' || action.action === 'peek' || action.action === 'search';
  const before = session.model.takeDecisions();
  // An action changes what the memory and lattice hold, never which ones they are: one context serves it throughout.
  const context = actionContextOf(session);
  try {
    const outcome =
      action.action === 'status'
        ? await statusAction(sessionView(session), action.detail)
        : await dispatch(context, action, caller);
    if (outcome.mutated) await persist();
    const numbers = reads ? undefined : curationNumbers(context);
    const added = numbers === undefined ? '' : `\n${describeNumbers(numbers)}`;
    const text = outcome.text + added;
    // A peek counted its bytes while cutting them; measuring its text again would flatten and scan up to a megabyte.
    const answerBytes = (outcome.textBytes ?? Buffer.byteLength(outcome.text)) + Buffer.byteLength(added);
    return {
      answer: {
        action: action.action,
        text,
        data: { ...outcome.data, ...(numbers === undefined ? {} : { numbers }) },
        numbers,
      },
      answerBytes,
    };
  } catch (error) {
    session.model.putDecisions(before);
    throw error;
  }
}

async function dispatch(
  session: ActionContext,
  action: Exclude<FoldAction, { action: 'status' }>,
  caller: ActionCaller,
): Promise<ActionOutcome> {
  switch (action.action) {
    case 'peek':
      return peekAction(session, action, caller);
    case 'search':
      return searchAction(session, action);
    case 'brief':
      return briefAction(session, action.id, action.text);
    case 'expand':
      return expandAction(session, action.id);
    case 'refold':
      return refoldAction(session, action.id, caller);
    case 'pin':
      return pinAction(session, action.ids);
    case 'unpin':
      return unpinAction(session, action.ids);
    case 'reboundary':
      return reboundaryAction(session, action.ids, action.brief, caller);
    case 'unmark':
      return unmarkAction(session, action.id);
  }
}
