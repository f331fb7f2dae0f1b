/**
 * Preloaded (`node --import`) to run the CLI as on a machine where no optional package is
 * installed: every import of Pi (either scope), the tokenizer, the AI SDK or a Keyv driver
 * fails as Node fails for a package that is not there.
 */
import { register } from 'node:module';

const hook = `
const OPTIONAL = /^(@mariozechner\\/|@earendil-works\\/|gpt-tokenizer|typebox|ai$|ai\\/|@ai-sdk\\/|@keyv\\/)/;
export function resolve(specifier, context, nextResolve) {
  if (!OPTIONAL.test(specifier)) return nextResolve(specifier, context);
  const parts = specifier.split('/');
  const name = specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
  const error = new Error("Cannot find package '" + name + "' imported from " + context.parentURL);
  error.code = 'ERR_MODULE_NOT_FOUND';
  throw error;
}
`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
