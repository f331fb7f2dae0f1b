import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The maintenance commands on a machine with keyv but none of its drivers: each target that
 * needs a driver (a SQLite file, a redis:// or postgres:// URL) is refused with exit 3 (as
 * docs/cli.md says), the package named with its install line, and no resolver text (no
 * "Cannot find package", no require stack). The targets are never contacted.
 */
const root = resolve(import.meta.dirname, '../..');
const BLOCKER = resolve(import.meta.dirname, 'support/without-store-packages.mjs');

function cli(argumentsList: readonly string[]): { status: number | null; out: string; error: string } {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', BLOCKER, 'bin/pi-fold.ts', ...argumentsList],
    { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PI_FOLD_DEBUG: '' } },
  );
  return { status: result.status, out: result.stdout, error: result.stderr };
}

const sqliteFile = join(mkdtempSync(join(tmpdir(), 'pi-fold-no-driver-')), 'store.sqlite');
writeFileSync(sqliteFile, Buffer.concat([Buffer.from('SQLite format 3\0', 'latin1'), Buffer.alloc(4080)]));

const TARGETS = [
  { target: sqliteFile, install: 'npm install @keyv/sqlite@4.0.8' },
  { target: 'redis://127.0.0.1:1', install: 'npm install keyv @keyv/redis@5.1.6' },
  { target: 'postgres://127.0.0.1:1/none', install: 'npm install keyv @keyv/postgres@2.2.3' },
];
const COMMANDS = [['verify'], ['gc'], ['view'], ['repair', '--session', 'any']];

describe('pi-fold maintenance commands without the store drivers', () => {
  for (const [name, ...options] of COMMANDS) {
    it.each(TARGETS)(`${name} on $target exits 3 and names the install line`, ({ target, install }) => {
      const result = cli([name!, target, ...options]);
      expect(result.status, result.error).toBe(3);
      expect(result.error).toContain('HOST.PACKAGE_MISSING');
      expect(result.error).toContain(install);
      expect(result.error).not.toContain('Cannot find package');
      expect(result.error).not.toContain('Require stack');
      expect(result.error).not.toMatch(/\n\s+at /);
      expect(result.out).toBe('');
    });
  }
});
