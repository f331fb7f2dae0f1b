/**
 * Module resolution hooks that answer the lab's Pi imports from another Pi install (see
 * `use-pi-host.mjs`): `@mariozechner/pi-*` (the scope the repository pins, 0.73.1) and
 * `@earendil-works/pi-*` (the scope from 0.74 on, which peers import) both resolve to the
 * chosen version's packages, and so does `typebox` (the schemas Pi validates tool calls
 * with must come from the same copy). Everything else resolves as usual.
 */
import { pathToFileURL } from 'node:url';

const PI_PACKAGE = /^@(?:mariozechner|earendil-works)\/(pi-coding-agent|pi-ai|pi-agent-core|pi-tui)(\/.*)?$/;

let hostParent;

/** Receives the Pi install folder from `register`. */
export function initialize(data) {
  hostParent = pathToFileURL(`${data.piHome}/package.json`).href;
}

export function resolve(specifier, context, nextResolve) {
  const pi = PI_PACKAGE.exec(specifier);
  if (pi !== null) return nextResolve(`@earendil-works/${pi[1]}${pi[2] ?? ''}`, { ...context, parentURL: hostParent });
  if (specifier === 'typebox' || specifier.startsWith('typebox/'))
    return nextResolve(specifier, { ...context, parentURL: hostParent });
  return nextResolve(specifier, context);
}
