#!/usr/bin/env node
/**
 * The `pi-fold` command's entry (package.json `bin`). In a checkout it runs the TypeScript
 * sources through tsx, so `npx pi-fold` works right after `npm ci` and always runs the code as
 * it is now, never a stale build; in the package, where no source ships, it runs the built
 * JavaScript under dist/ and needs no tsx.
 */
import { existsSync } from 'node:fs';

const source = new URL('./pi-fold.ts', import.meta.url);
const built = new URL('../dist/bin/pi-fold.js', import.meta.url);

/** tsx's loader, or undefined where it is not installed (a checkout installed without dev dependencies). */
async function typescriptLoader() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return undefined;
  }
}

const loader = existsSync(source) ? await typescriptLoader() : undefined;
if (loader !== undefined) {
  loader.register();
  await import(source.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  console.error(
    'pi-fold: neither the built CLI (dist/bin/pi-fold.js) nor tsx to run its sources is here; ' +
      'in a checkout run `npm ci` (it installs tsx), or `npm run build`',
  );
  process.exitCode = 1;
}
