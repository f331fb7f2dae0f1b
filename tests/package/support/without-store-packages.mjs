/**
 * Preloaded (`node --import`) to run the CLI as on a machine where the store drivers
 * (`@keyv/sqlite`, `@keyv/redis`, `@keyv/postgres`) are not installed, while keyv itself is.
 * The drivers are reached both by `import` and by `require` (SQLite and PostgreSQL load
 * through createRequire), so both resolvers fail as Node fails for a missing package.
 */
import Module, { register } from 'node:module';

const DRIVER = /^@keyv\/(sqlite|redis|postgres)(\/|$)/;

const hook = `
const DRIVER = ${DRIVER.toString()};
export function resolve(specifier, context, nextResolve) {
  if (!DRIVER.test(specifier)) return nextResolve(specifier, context);
  const name = specifier.split('/').slice(0, 2).join('/');
  const error = new Error("Cannot find package '" + name + "' imported from " + context.parentURL);
  error.code = 'ERR_MODULE_NOT_FOUND';
  throw error;
}
`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function resolveUnlessDriver(request, parent, ...rest) {
  if (DRIVER.test(request)) {
    const error = new Error(`Cannot find module '${request}'\nRequire stack:\n- ${parent?.filename ?? '?'}`);
    error.code = 'MODULE_NOT_FOUND';
    throw error;
  }
  return resolveFilename.call(this, request, parent, ...rest);
};
