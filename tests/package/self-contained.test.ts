import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A clone must test itself with nothing beside it: every path a test builds from its own
 * folder has to stay inside the repository, and the real transcripts the replay tests read
 * live in tests/fixtures with their sources and licences.
 */
const root = resolve(import.meta.dirname, '../..');

function testSources(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : testSources(path);
    return /\.(ts|mjs)$/.test(entry.name) ? [path] : [];
  });
}

const pathFromOwnFolder = /(?:resolve|join)\(\s*import\.meta\.dirname\s*,\s*'([^']+)'/g;

describe('the tests read nothing outside the repository', () => {
  it('every path built from a test file’s own folder stays inside the clone', () => {
    const outside: string[] = [];
    for (const file of testSources(join(root, 'tests'))) {
      for (const match of readFileSync(file, 'utf8').matchAll(pathFromOwnFolder)) {
        const target = resolve(dirname(file), match[1]!);
        if (relative(root, target).startsWith('..')) outside.push(`${relative(root, file)} → ${match[1]}`);
      }
    }
    expect(outside).toEqual([]);
  });

  it('no test names the developers’ shared folder', () => {
    const naming = testSources(join(root, 'tests')).filter((file) => /\.\.\/shared\//.test(readFileSync(file, 'utf8')));
    expect(naming.map((file) => relative(root, file))).toEqual([]);
  });

  it('the kept transcripts come with their sources and licences', () => {
    const sources = readFileSync(join(root, 'tests/fixtures/transcripts/SOURCES.md'), 'utf8');
    for (const file of readdirSync(join(root, 'tests/fixtures/transcripts'), { recursive: true })) {
      const name = String(file);
      if (!name.endsWith('.jsonl')) continue;
      expect(sources).toContain(`\`${name}\``);
    }
    expect(sources).toContain('MIT License');
    expect(sources).toContain('CC0 1.0');
  });
});
