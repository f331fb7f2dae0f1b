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

function importsOf(path: string): string[] {
  const text = readFileSync(path, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'"]*?from\s+['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|import\s+['"]([^'"]+)['"]/g)].map((match) => match[1] ?? match[2] ?? match[3] ?? '');
}

/** Layers: the core and the ports may not reach outward, nor pull in the DI container. */
function layerViolations(root: string): string[] {
  const violations: string[] = [];
  for (const layer of ['core', 'ports']) {
    for (const file of sourceFiles(join(root, layer))) {
      for (const specifier of importsOf(file)) {
        const resolved = specifier.startsWith('.') ? relative(root, resolve(file, '..', specifier)) : specifier;
        const outward = /^(adapters|composition|testing|bench|lab|examples|bin|tests)(\/|$)/.test(resolved);
        const forbiddenPackage = /^(tsyringe|reflect-metadata|keyv|@keyv\/|ai$|@ai-sdk\/|@mariozechner\/|typebox|zod)/.test(specifier);
        if (outward || forbiddenPackage) violations.push(`${relative(root, file)} imports ${specifier}`);
        if (layer === 'ports' && !specifier.startsWith('./')) violations.push(`${relative(root, file)} (a port) imports ${specifier}`);
      }
    }
  }
  return violations;
}

describe('dependency rule', () => {
  it('core/ and ports/ import nothing from adapters, the composition root, tsyringe or host SDKs', () => {
    expect(layerViolations(root)).toEqual([]);
  });

  it('the rule sees forbidden imports when they exist', () => {
    const fixture = mkdtempSync(join(tmpdir(), 'pi-fold-layers-'));
    mkdirSync(join(fixture, 'core'));
    mkdirSync(join(fixture, 'ports'));
    writeFileSync(join(fixture, 'core/engine.ts'), "import { container } from 'tsyringe';\nimport { FsStore } from '../adapters/storage-fs/fs-store.ts';\nconst lazy = import('../composition/root.ts');\n");
    writeFileSync(join(fixture, 'ports/store.port.ts'), "import type { Engine } from '../core/engine.ts';\n");
    expect(layerViolations(fixture)).toEqual([
      'core/engine.ts imports tsyringe',
      'core/engine.ts imports ../adapters/storage-fs/fs-store.ts',
      'core/engine.ts imports ../composition/root.ts',
      'ports/store.port.ts (a port) imports ../core/engine.ts',
    ]);
  });
});
