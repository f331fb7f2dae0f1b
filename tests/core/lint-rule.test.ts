import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const biome = join(root, 'node_modules', '.bin', 'biome');

/** Run the lint exactly as `npm run lint` does, over a throwaway tree holding one file and the project's config. */
function lint(source: string): { status: number | null; output: string } {
  const directory = mkdtempSync(join(tmpdir(), 'pi-fold-lint-'));
  const config = readFileSync(join(root, 'biome.json'), 'utf8');
  writeFileSync(join(directory, 'biome.json'), config.replace('./node_modules/', `${root}/node_modules/`));
  writeFileSync(join(directory, 'sample.ts'), source);
  const run = spawnSync(biome, ['ci', '--error-on-warnings', '--colors=off', '--vcs-enabled=false', '.'], {
    cwd: directory,
    encoding: 'utf8',
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe('lint and format rule (biome.json, run by npm test)', () => {
  it('a file already in the project style passes', () => {
    const result = lint("import { join } from 'node:path';\n\nexport const where = join('a', 'b');\n");
    expect(result.output).not.toMatch(/error|warning/i);
    expect(result.status).toBe(0);
  });

  it('fails on a line past the width, unsorted imports and a lint breach, naming each', () => {
    const long = `export const words = [${Array.from({ length: 30 }, (_, index) => `'w${index}'`).join(', ')}];\n`;
    const result = lint(
      `import { resolve } from 'node:path';\nimport { join } from 'node:fs';\n${long}export function f(x: any) { return [resolve, join, x]; }\n`,
    );
    expect(result.status).not.toBe(0);
    expect(result.output).toContain('format');
    expect(result.output).toContain('organizeImports');
    expect(result.output).toContain('lint/suspicious/noExplicitAny');
  });
});
