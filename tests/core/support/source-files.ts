import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Every file under `directory` whose name matches `names` (TypeScript by default), depth first
 * in directory order; `node_modules` and dot-folders are skipped, and a missing directory has
 * none. The tree checks (layer rules, line width, state owners) all walk the tree this way.
 */
export function sourceFiles(directory: string, names: RegExp = /\.ts$/): string[] {
  if (!existsSync(directory)) return [];
  return readdirSync(directory).flatMap((name) => {
    if (name === 'node_modules' || name.startsWith('.')) return [];
    const path = join(directory, name);
    if (statSync(path).isDirectory()) return sourceFiles(path, names);
    return names.test(name) ? [path] : [];
  });
}
