/**
 * The `.d.ts` files under dist/ name Pi's packages under either scope, so a TypeScript user of
 * Pi 0.x (`@mariozechner/*`) or Pi 1.x (`@earendil-works/*`) type-checks them with skipLibCheck
 * off. tsc writes the scope the sources import (`@mariozechner/*`); this step points those
 * imports at dist/pi-host-types/<package>.d.ts, which re-exports the package from whichever
 * scope is installed. The re-export of the absent scope is a TS2307 that `@ts-ignore` silences;
 * the present scope supplies every name, so the types stay exact, never `any`.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

const PI_PACKAGES = ['pi-agent-core', 'pi-ai', 'pi-coding-agent', 'pi-tui'] as const;
const OLD_SCOPE_IMPORT = /from '@mariozechner\/(pi-agent-core|pi-ai|pi-coding-agent|pi-tui)'/g;
export const HOST_TYPES_FOLDER = 'pi-host-types';

function shimText(name: string): string {
  return [
    `// ${name} from whichever Pi line is installed (see scripts/pi-host-types.ts in pi-fold).`,
    '// @ts-ignore: absent when Pi 1.x is installed',
    `export * from '@mariozechner/${name}';`,
    '// @ts-ignore: absent when Pi 0.x is installed',
    `export * from '@earendil-works/${name}';`,
    '',
  ].join('\n');
}

function declarationFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.d.ts'))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Rewrite every `@mariozechner/pi-*` import of dist's `.d.ts` files; returns how many files changed. */
export function retargetPiTypeImports(dist: string): number {
  const shims = join(dist, HOST_TYPES_FOLDER);
  mkdirSync(shims, { recursive: true });
  for (const name of PI_PACKAGES) writeFileSync(join(shims, `${name}.d.ts`), shimText(name));
  let changed = 0;
  for (const file of declarationFiles(dist)) {
    if (file.startsWith(shims + sep)) continue;
    const text = readFileSync(file, 'utf8');
    const toShims = relative(dirname(file), shims).split(sep).join('/');
    const rewritten = text.replace(OLD_SCOPE_IMPORT, (_match, name: string) => `from '${toShims}/${name}.js'`);
    if (rewritten !== text) {
      writeFileSync(file, rewritten);
      changed += 1;
    }
  }
  return changed;
}
