/**
 * `npm run build` (and `prepack`): what the published package runs, under dist/.
 *   1. tsc (tsconfig.build.json): ESM JavaScript, .d.ts and source maps for
 *      every product folder; relative `.ts` imports become `.js` (rewriteRelativeImportExtensions).
 *   1b. the .d.ts files' Pi imports retargeted at either Pi scope (scripts/pi-host-types.ts).
 *   2. esbuild: the Pi extension as one file, dist/pi-extension/pi-fold.js (the package's
 *      `pi.extensions` entry), with every dependency inside (tsyringe, reflect-metadata, keyv),
 *      because Pi loads a local package directory as it is, without installing its dependencies. Pi's own packages and typebox stay
 *      external: Pi's loader hands the extension the host's copies under those names.
 * The TypeScript sources stay the source of truth; tests and the demo run them through tsx.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundlePiExtension } from './bundle-pi-extension.ts';
import { retargetPiTypeImports } from './pi-host-types.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

function compileWithTsc(): void {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const result = spawnSync(process.execPath, [tsc, '-p', join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`tsc -p tsconfig.build.json exited ${result.status}`);
}

const started = Date.now();
if (process.argv.includes('--pi-only')) {
  // `npm run build:pi`: only the extension bundle, enough for `pi install <checkout>`.
  await bundlePiExtension();
  console.log(`built dist/pi-extension/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
} else {
  rmSync(dist, { recursive: true, force: true });
  compileWithTsc();
  retargetPiTypeImports(dist);
  await bundlePiExtension();
  chmodSync(join(dist, 'bin/pi-fold.js'), 0o755);
  console.log(`built dist/ in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}
