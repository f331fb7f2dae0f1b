/**
 * The Pi extension as one self-contained ES module, dist/pi-extension/pi-fold.js: what the
 * package's `pi.extensions` names. Used by `npm run build`, `npm run build:pi` and the test that
 * runs `pi install <checkout>`.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

/** Modules the Pi extension bundle must not contain: the host provides them, or only other paths load them. */
export const PI_BUNDLE_EXTERNALS = [
  '@mariozechner/*',
  '@earendil-works/*',
  'typebox',
  '@sinclair/typebox',
  // The host's own OpenTelemetry API, when it has one: its global providers must be the host's copy.
  '@opentelemetry/*',
  // Optional, loaded only when a SQLite store or the lab is chosen, never by Pi's default fs store.
  '@keyv/sqlite',
  'sqlite3',
  'gpt-tokenizer',
  // Optional peer: a host that installed it gets metrics and spans through its own global providers.
  '@opentelemetry/api',
];

/** Write dist/pi-extension/pi-fold.js from adapters/hosts/pi/index.ts. */
export async function bundlePiExtension(): Promise<void> {
  await build({
    entryPoints: [join(root, 'adapters/hosts/pi/index.ts')],
    outfile: join(dist, 'pi-extension/pi-fold.js'),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20.6',
    // No source map: the TypeScript sources are not shipped, so a map would point at nothing.
    sourcemap: false,
    external: PI_BUNDLE_EXTERNALS,
    // tsyringe's decorators need the legacy (experimental) decorator transform, as in tsc.
    tsconfig: join(root, 'tsconfig.json'),
    logLevel: 'warning',
    legalComments: 'eof',
  });
}
