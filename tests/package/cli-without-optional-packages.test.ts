import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../bin/cli.ts';
import { cliWithBlocker } from './support/cli-with-blocker.ts';

/**
 * The CLI as a user meets it before installing any optional package: each command's help
 * answers (exit 0), and `replay`, which needs Pi and the tokenizer, says so with the install
 * line of either supported Pi (exit 3), never a stack.
 */
const cli = (argumentsList: readonly string[]) => cliWithBlocker('without-optional-packages.mjs', argumentsList);

describe('pi-fold with no optional package installed', () => {
  it.each(COMMANDS.map((command) => command.name))('%s --help prints its usage and exits 0', (name) => {
    const command = COMMANDS.find((candidate) => candidate.name === name)!;
    const result = cli([name, '--help']);
    expect(result.status, result.error).toBe(0);
    expect(result.out).toContain(`usage: ${command.usage}`);
    expect(result.error).toBe('');
  });

  it('replay names what to install for either Pi line and exits 3', () => {
    const result = cli(['replay', 'session.jsonl']);
    expect(result.status, result.error).toBe(3);
    expect(result.error).toContain('npm install @mariozechner/pi-coding-agent@0.73.1 gpt-tokenizer@4.0.0');
    expect(result.error).toContain('npm install @earendil-works/pi-coding-agent@1.6.0 gpt-tokenizer@4.0.0');
    expect(result.error).not.toMatch(/\n\s+at /);
  });
});
