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
  run(argumentsAfterName: readonly string[], output: CommandOutput): Promise<number>;
}

/** Exit codes shared by every command (listed in `pi-fold --help` and docs/install.md). */
export const EXIT = { ok: 0, problemsFound: 1, usage: 2, missingPackage: 3 } as const;

/** Split `--name value` / `--flag` options from positional arguments. */
export function parseCommandArguments(
  argumentsList: readonly string[],
  valueOptions: readonly string[],
): { positional: string[]; options: Map<string, string | true> } {
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  for (let index = 0; index < argumentsList.length; index += 1) {
    const argument = argumentsList[index] ?? '';
    if (!argument.startsWith('--')) {
      positional.push(argument);
      continue;
    }
    const [name = '', inlineValue] = argument.slice(2).split(/=(.*)/s, 2);
    if (!valueOptions.includes(name)) options.set(name, inlineValue ?? true);
    else if (inlineValue !== undefined) options.set(name, inlineValue);
    else {
      const next = argumentsList[index + 1];
      if (next === undefined) throw new Error(`--${name} needs a value`);
      options.set(name, next);
      index += 1;
    }
  }
  return { positional, options };
}
