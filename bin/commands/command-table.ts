import type { ParsedArguments } from './command-options.ts';

/** Where a command writes; a test passes its own to capture output. */
export interface CommandOutput {
  out(line: string): void;
  error(line: string): void;
}

/** One `pi-fold <name>` command. `run` returns the process exit code. */
export interface CliCommand {
  readonly name: string;
  /** One line for `pi-fold help`. */
  readonly summary: string;
  readonly usage: string;
  /** Runs on arguments already checked against the command's options (bin/cli.ts parses them). */
  run(parsed: ParsedArguments, output: CommandOutput): Promise<number>;
}

/** Exit codes shared by every command (listed in `pi-fold --help` and docs/cli.md). */
export const EXIT = { ok: 0, problemsFound: 1, usage: 2, missingPackage: 3, noAnswer: 4 } as const;
