import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, sep } from 'node:path';
import { FoldError } from '../../core/fold-error.ts';

/** One file of the workload's source tree. */
export interface SourceFile {
  /** Path relative to the tree root, with forward slashes. */
  readonly path: string;
  readonly bytes: number;
}

/** A real source tree available offline: where it is, which package version, its files sorted. */
export interface SourceTree {
  readonly root: string;
  readonly label: string;
  readonly files: readonly SourceFile[];
  read(path: string): string;
}

/**
 * The workload's tree: the TypeScript sources zod ships in `node_modules/zod/src` (a pinned
 * dependency, so every clone has the same bytes). Only `.ts` files, sorted by path.
 */
export function zodSourceTree(): SourceTree {
  const require = createRequire(import.meta.url);
  const manifest = require.resolve('zod/package.json');
  const version = (JSON.parse(readFileSync(manifest, 'utf8')) as { version: string }).version;
  const root = join(dirname(manifest), 'src');
  const files: SourceFile[] = [];
  const walk = (directory: string): void => {
    for (const name of readdirSync(directory).sort()) {
      const path = join(directory, name);
      const stats = statSync(path);
      if (stats.isDirectory()) walk(path);
      else if (name.endsWith('.ts')) files.push({ path: relative(root, path).split(sep).join('/'), bytes: stats.size });
    }
  };
  walk(root);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  if (files.length < 50)
    throw new FoldError(
      'HOST.PACKAGE_MISSING',
      `the lab's source tree ${root} has ${files.length} .ts files; is zod installed?`,
    );
  return { root, label: `zod@${version}/src`, files, read: (path) => readFileSync(join(root, path), 'utf8') };
}
