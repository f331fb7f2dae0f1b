import { mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? sourceFiles(path) : name.endsWith('.ts') ? [path] : [];
  });
}

/** Relative imports of a file, type-only ones included: a cycle of types still ties modules together. */
function localImports(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:import|export)[^'";]*?from\s+['"](\.[^'"]+)['"]|import\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g),
  ].map((match) => match[1] ?? match[2]!);
  return specifiers.map((specifier) => resolve(path, '..', specifier));
}

/** Every import cycle among the files under `folders` of `base`, each as a path of files (first repeated last). */
function importCycles(base: string, folders: readonly string[]): string[][] {
  const files = folders.flatMap((folder) => sourceFiles(join(base, folder)));
  const known = new Set(files);
  const edges = new Map(files.map((file) => [file, localImports(file).filter((target) => known.has(target))]));
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (file: string): void => {
    state.set(file, 'open');
    stack.push(file);
    for (const target of edges.get(file) ?? []) {
      if (state.get(target) === 'open')
        cycles.push([...stack.slice(stack.indexOf(target)), target].map((path) => relative(base, path)));
      else if (state.get(target) === undefined) visit(target);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of [...files].sort()) if (state.get(file) === undefined) visit(file);
  return cycles;
}

describe('no import cycles in the engine', () => {
  it('core/ and ports/ import each other in no cycle (type-only imports count)', () => {
    expect(importCycles(root, ['core', 'ports'])).toEqual([]);
  });

  it('the check finds a cycle when one exists, through a type-only import too', () => {
    const fixture = mkdtempSync(join(tmpdir(), 'pi-fold-cycles-'));
    mkdirSync(join(fixture, 'core/actions'), { recursive: true });
    writeFileSync(
      join(fixture, 'core/runtime.ts'),
      "import { act } from './actions/act.ts';\nexport const run = act;\n",
    );
    writeFileSync(
      join(fixture, 'core/actions/act.ts'),
      "import type { Runtime } from '../runtime.ts';\nexport const act = 1;\n",
    );
    writeFileSync(join(fixture, 'core/leaf.ts'), 'export const leaf = 1;\n');
    expect(importCycles(fixture, ['core'])).toEqual([
      ['core/actions/act.ts', 'core/runtime.ts', 'core/actions/act.ts'],
    ]);
  });
});
