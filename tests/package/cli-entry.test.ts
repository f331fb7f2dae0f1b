import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COMMANDS, missingPackageOf, runCli } from '../../bin/cli.ts';

const root = resolve(import.meta.dirname, '../..');
const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;

async function captured(argumentsList: string[]): Promise<{ code: number; out: string; error: string }> {
  const out: string[] = [];
  const error: string[] = [];
  const code = await runCli(argumentsList, { out: (line) => out.push(line), error: (line) => error.push(line) });
  return { code, out: out.join('\n'), error: error.join('\n') };
}

describe('the pi-fold command line entry', () => {
  it('--version prints the version in package.json', async () => {
    expect(await captured(['--version'])).toEqual({ code: 0, out: version, error: '' });
  });

  it('--help lists every command with its usage, and the exit codes', async () => {
    const { code, out } = await captured(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('usage: pi-fold <command> [arguments]');
    for (const command of COMMANDS) expect(out).toContain(command.usage);
    expect(out).toMatch(
      /exit codes: 0 ok · 1 problems found .* · 2 bad arguments .* · 3 an optional package the command needs is not installed · 4 the store did not answer within --timeout/,
    );
  });

  it('an unknown command exits 2 with the help on stderr', async () => {
    const { code, error } = await captured(['frobnicate']);
    expect(code).toBe(2);
    expect(error).toMatch(/^pi-fold: unknown command "frobnicate"/);
  });

  it('a missing package is told apart from a missing file of ours', async () => {
    const packageError = await import('pi-fold-no-such-package-' + 'for-this-test').catch((error: unknown) => error);
    expect(missingPackageOf(packageError)).toBe('pi-fold-no-such-package-for-this-test');
    const fileError = await import('./no-such-file-' + 'here.ts').catch((error: unknown) => error);
    expect(missingPackageOf(fileError)).toBeUndefined();
  });
});
