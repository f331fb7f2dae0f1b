import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cliWithBlocker } from './support/cli-with-blocker.ts';

/**
 * The maintenance commands on a machine with keyv but none of its drivers: each target that
 * needs a driver (a SQLite file, a redis:// or postgres:// URL) is refused with exit 3 (as
 * docs/cli.md says), the package named with its install line, and no resolver text (no
 * "Cannot find package", no require stack). The targets are never contacted.
 */
const cli = (argumentsList: readonly string[]) => cliWithBlocker('without-store-packages.mjs', argumentsList);

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
