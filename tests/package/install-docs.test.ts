import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../bin/cli.ts';

/**
 * What the install pages promise a newcomer. The `npm install --prefix … <tgz>` form needs the
 * registry (npm fetches the dependencies even from a tarball), so no page may call it
 * offline-safe, and the offline form they give is the unpacked tarball; `pi install <tgz>`,
 * which Pi accepts but cannot load, is warned against where a user reads; every command of the
 * CLI is in docs/cli.md's table.
 */
const root = resolve(import.meta.dirname, '../..');
const read = (path: string) => readFileSync(join(root, path), 'utf8');

describe('the install docs', () => {
  it('never call the npm tarball install offline-safe, and give the unpacked form for offline', () => {
    for (const page of ['README.md', 'docs/install.md']) {
      const text = read(page);
      expect(text, page).not.toMatch(/offline-safe/i);
      expect(text, page).toMatch(
        /tar xzf \S*pi-fold-0\.1\.0\.tgz[^\n]*(\n[^\n]*)?pi install \S*\/package\b[^\n]*offline/,
      );
    }
    expect(read('docs/install.md')).toMatch(/This `npm install` needs the registry/);
  });

  it('warn that pi install of a .tgz registers what Pi cannot load, and how to undo it', () => {
    for (const page of ['README.md', 'docs/install.md']) {
      const text = read(page).replace(/\s+/g, ' ');
      expect(text, page).toMatch(/[Nn]ot `pi install \.\/pi-fold-0\.1\.0\.tgz`/);
      expect(text, page).toContain('Unknown file extension .tgz');
      expect(text, page).toContain('pi remove ./pi-fold-0.1.0.tgz');
      expect(text, page).toContain('pi-fold doctor');
    }
  });

  it("list every CLI command in docs/cli.md's table, doctor with its exit codes", () => {
    const cli = read('docs/cli.md');
    for (const command of COMMANDS) expect(cli, command.name).toMatch(new RegExp(`^\\| \`${command.name}\\b`, 'm'));
    const doctor = cli.slice(cli.indexOf('## pi-fold doctor'));
    expect(doctor).toMatch(/Exit 0 when nothing is a\s+problem.*1 when anything is, 2 for bad arguments/s);
  });
});
