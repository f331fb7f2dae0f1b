import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The package's entry points name built files under dist/; the build writes each from the source
// at the same path. When a helper moves or adds a source folder, these checks say which entry
// (or which build input) no longer follows, without building anything.
const root = resolve(import.meta.dirname, '../..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { types: string; import: string; default: string }>;
  bin: Record<string, string>;
  pi: { extensions: string[] };
  files: string[];
};
const buildConfig = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8')) as { include: string[] };

/** `./dist/core/index.js` → `core/index.ts`: the source tsc compiles to that file. */
function sourceOf(distPath: string): string {
  const match = /^\.\/dist\/(.+)\.(d\.ts|js)$/.exec(distPath);
  if (match === null) throw new Error(`${distPath} is not a built file under ./dist/`);
  return `${match[1]}.ts`;
}

describe('package.json entry points follow the sources', () => {
  it('every export has types, import and default conditions built from an existing source', () => {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (subpath === './package.json') continue;
      expect(typeof target, subpath).toBe('object');
      const conditions = target as { types: string; import: string; default: string };
      expect(Object.keys(conditions), subpath).toEqual(['types', 'import', 'default']);
      const source = sourceOf(conditions.import);
      expect(sourceOf(conditions.types), subpath).toBe(source);
      expect(conditions.default, subpath).toBe(conditions.import);
      expect(existsSync(join(root, source)), `${subpath} → ${source}`).toBe(true);
      expect(
        buildConfig.include.some((folder) => source.startsWith(`${folder}/`)),
        `${source} is outside tsconfig.build.json's include`,
      ).toBe(true);
    }
  });

  it('the CLI entry is a committed launcher that ships, and the CLI it runs is built from bin/pi-fold.ts', () => {
    const launcher = manifest.bin['pi-fold']!;
    expect(launcher).toBe('./bin/pi-fold.mjs');
    expect(manifest.files).toContain(launcher.slice(2));
    expect(readFileSync(join(root, launcher), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(readFileSync(join(root, launcher), 'utf8')).toContain("'../dist/bin/pi-fold.js'");
    expect(readFileSync(join(root, 'bin/pi-fold.ts'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });

  it('every product folder is built, and the tarball holds dist/', () => {
    for (const folder of ['core', 'ports', 'application', 'adapters', 'composition', 'testing', 'bin', 'lab']) {
      if (existsSync(join(root, folder))) expect(buildConfig.include, folder).toContain(folder);
    }
    for (const folder of buildConfig.include)
      expect(existsSync(join(root, folder)), `tsconfig.build.json includes missing ${folder}`).toBe(true);
    expect(manifest.files).toContain('dist/');
    expect(manifest.pi.extensions).toEqual(['./dist/pi-extension/pi-fold.js']);
  });
});
