/**
 * Module resolution hooks that answer the AI SDK imports from another install (see
 * `use-ai-host.mjs`): `ai` (with its subpaths such as `ai/test`), `@ai-sdk/*` and `zod` resolve
 * as if imported from that folder, so the lab runs on its `ai` instead of the root's pinned
 * one. Everything else (Pi, pi-fold, the lab) resolves as usual.
 */
import { pathToFileURL } from 'node:url';

const AI_PACKAGE = /^(?:ai|@ai-sdk\/[^/]+|zod)(?:\/.*)?$/;

let hostParent;

/** Receives the install folder from `register`. */
export function initialize(data) {
  hostParent = pathToFileURL(`${data.aiHome}/package.json`).href;
}

export function resolve(specifier, context, nextResolve) {
  if (AI_PACKAGE.test(specifier)) return nextResolve(specifier, { ...context, parentURL: hostParent });
  return nextResolve(specifier, context);
}
