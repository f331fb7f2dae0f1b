import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The compatibility job's config: the main project's Pi and Vercel AI suites, run from the
 * repository root, with every host import answered by this folder's packages (Pi 1.x under
 * `@earendil-works`, ai@7 and its spec-V4 provider) instead of the root's pinned 0.73.1/ai@6.
 */
const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const modules = join(here, 'node_modules');

// PI_FOLD_PI_HOST names another Pi install (lab/peers/install-pi-host.sh <version>, e.g. 0.87.1):
// the Pi packages and the typebox Pi validates with then come from there, the rest from here.
const piHost = process.env.PI_FOLD_PI_HOST;
const piModules = piHost === undefined || piHost === '' ? modules : join(resolve(piHost), 'node_modules');

/** The file a bare specifier resolves to from `from` (ESM conditions, as Node would load it). */
function entryOf(specifier: string, from = modules): string {
  return fileURLToPath(import.meta.resolve(specifier, `file://${from}/`));
}

// Packages the adapters or the suites import, and the compat copy each maps to. The root's
// `@mariozechner/*` imports are type-only in the adapters; the test support imports them for
// real (it drives a real session), so they map to the current scope here.
const piPackages = ['pi-coding-agent', 'pi-ai', 'pi-agent-core', 'pi-tui'];
const alias = [
  ...piPackages.flatMap((name) => [
    { find: new RegExp(`^@mariozechner/${name}$`), replacement: entryOf(`@earendil-works/${name}`, piModules) },
    { find: new RegExp(`^@earendil-works/${name}$`), replacement: entryOf(`@earendil-works/${name}`, piModules) },
  ]),
  // The wire-format suite builds request bodies with pi-ai's own built-in providers.
  {
    find: /^@(?:mariozechner|earendil-works)\/pi-ai\/providers\/all$/,
    replacement: entryOf('@earendil-works/pi-ai/providers/all', piModules),
  },
  { find: /^ai$/, replacement: entryOf('ai') },
  { find: /^ai\/test$/, replacement: entryOf('ai/test') },
  { find: /^@ai-sdk\/provider$/, replacement: entryOf('@ai-sdk/provider') },
  { find: /^typebox$/, replacement: entryOf('typebox', piModules) },
  { find: /^zod$/, replacement: entryOf('zod') },
];

function piVersionAt(folder: string): string {
  return (
    JSON.parse(readFileSync(join(folder, '@earendil-works/pi-coding-agent/package.json'), 'utf8')) as {
      version: string;
    }
  ).version;
}

export default defineConfig({
  root,
  resolve: { alias },
  test: {
    include: ['tests/pi/**/*.test.ts', 'tests/vercel-ai/**/*.test.ts'],
    setupFiles: [join(here, 'host-versions.setup.ts')],
    env: {
      // The CLI suites (cli, fold-editor-terminal) run this `pi` (the package's bin) instead of the root's 0.x.
      PI_FOLD_PI_CLI: join(piModules, '@earendil-works/pi-coding-agent/dist/bundle/cli.js'),
      // The Pi generation host-versions.setup.ts insists on: 1.x here, or the other install's own version.
      PI_FOLD_EXPECTED_PI: piModules === modules ? '1.' : piVersionAt(piModules),
    },
    testTimeout: 60_000,
    reporters: ['default'],
  },
});
