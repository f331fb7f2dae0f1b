import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `import 'pi-fold/pi'` in an application where neither Pi nor typebox is installed: the
 * import is refused with FoldError `HOST.PACKAGE_MISSING` naming typebox and the install line of
 * either Pi, not Node's bare "Cannot find package".
 */
const root = resolve(import.meta.dirname, '../..');
const BLOCKER = resolve(import.meta.dirname, 'support/without-optional-packages.mjs');

function importWithoutOptionalPackages(entry: string): { code?: string; message?: string; loaded?: boolean } {
  const script = `import(${JSON.stringify(entry)}).then(
    () => console.log(JSON.stringify({ loaded: true })),
    (error) => console.log(JSON.stringify({ code: error.code, message: error.message })),
  );`;
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', BLOCKER, '--input-type=module', '-e', script],
    { cwd: root, encoding: 'utf8', timeout: 60_000 },
  );
  expect(result.status, result.stderr).toBe(0);
  return JSON.parse(result.stdout.trim().split('\n').at(-1) ?? '{}');
}

describe('pi-fold/pi without Pi', () => {
  it.each(['./adapters/hosts/pi/index.ts', './adapters/hosts/pi/internal.ts'])(
    'importing %s names typebox and how to install Pi',
    (entry) => {
      const outcome = importWithoutOptionalPackages(entry);
      expect(outcome.code).toBe('HOST.PACKAGE_MISSING');
      expect(outcome.message).toContain('typebox');
      expect(outcome.message).toContain('npm install @mariozechner/pi-coding-agent@0.73.1');
      expect(outcome.message).toContain('npm install @earendil-works/pi-coding-agent@1.6.0');
    },
  );
});
