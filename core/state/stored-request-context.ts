import type { StoredRequestContextV1 } from '../../ports/fold-records.ts';
import type { RequestContext } from '../../ports/shared-types.ts';
import { FoldError } from '../fold-error.ts';

/** What the session remembers of a request's context: the window and the model, nothing of the moment. */
export interface RequestContextMemory {
  readonly requestContext: StoredRequestContextV1 | undefined;
  keepRequestContext(context: StoredRequestContextV1 | undefined): void;
}

/**
 * The fields of a request's context its budget follows from (`requestBudget` reads only
 * these), as they are kept in the state; undefined when the request named neither.
 */
export function storedRequestContext(context: RequestContext): StoredRequestContextV1 | undefined {
  const { contextWindow, model } = context;
  const id = model?.id;
  const provider = model?.provider;
  const named = id !== undefined || provider !== undefined;
  if (contextWindow === undefined && !named) return undefined;
  return {
    ...(contextWindow === undefined ? {} : { contextWindow }),
    ...(named
      ? { model: { ...(id === undefined ? {} : { id }), ...(provider === undefined ? {} : { provider }) } }
      : {}),
  };
}

/** Whether two contexts give the same budget inputs (window, model id, provider). */
export function sameRequestContext(
  a: StoredRequestContextV1 | RequestContext | undefined,
  b: StoredRequestContextV1 | RequestContext | undefined,
): boolean {
  return (
    a?.contextWindow === b?.contextWindow && a?.model?.id === b?.model?.id && a?.model?.provider === b?.model?.provider
  );
}

/**
 * Keep this request's window and model with the session's state. Returns whether they
 * changed, which is a decision worth a state write: it happens at a session's first request
 * and when the host switches model, not per request.
 */
export function rememberRequestContext(memory: RequestContextMemory, context: RequestContext): boolean {
  if (sameRequestContext(memory.requestContext, context)) return false;
  memory.keepRequestContext(storedRequestContext(context));
  return true;
}

/**
 * The context a host expects its next requests to have, over what the state remembers. A
 * host that names the model says it all; one that gives only the window (the AI SDK adapter
 * knows no model before the first step) keeps the remembered model, so a budget keyed by
 * model is still found.
 */
export function expectedRequestContext(
  remembered: StoredRequestContextV1 | undefined,
  told: RequestContext,
): RequestContext {
  if (told.model !== undefined || remembered === undefined) return told;
  return { ...remembered, ...told };
}

/** Refuse a stored request context that is not one this runtime wrote, naming the field. */
export function checkStoredRequestContext(value: unknown, sessionId: string): void {
  const context = value as { contextWindow?: unknown; model?: unknown } | null;
  const window = context?.contextWindow;
  const model = context?.model as { id?: unknown; provider?: unknown } | null | undefined;
  const valid =
    typeof context === 'object' &&
    context !== null &&
    (window === undefined || (typeof window === 'number' && Number.isFinite(window) && window > 0)) &&
    (model === undefined ||
      (typeof model === 'object' &&
        model !== null &&
        (model.id === undefined || typeof model.id === 'string') &&
        (model.provider === undefined || typeof model.provider === 'string')));
  if (valid) return;
  throw new FoldError(
    'STATE.CORRUPT',
    `engine state of session ${sessionId}: requestContext must hold a positive contextWindow and a model with a string id and provider`,
    { details: { sessionId, field: 'requestContext' } },
  );
}
