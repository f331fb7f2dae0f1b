import { parseArgs } from 'node:util';
import { nearestName } from '../../composition/option-checks.ts';

/** One option of a command, as its help lists it and the parser accepts it. */
export interface CommandOption {
  /** Long name without the dashes: `dry-run` for `--dry-run`. */
  readonly name: string;
  /** What the value is called in the help (`id`, `file.html`); absent for an on/off flag. */
  readonly value?: string;
  /** One-letter alias (`h` for `-h`). */
  readonly short?: string;
  readonly description: string;
}

/** Every command takes `--help`; it is answered before the command's code is loaded. */
export const HELP_OPTION: CommandOption = { name: 'help', short: 'h', description: 'print this help and exit' };

/** A command's arguments once every option is known: positional arguments and option values. */
export interface ParsedArguments {
  readonly positional: readonly string[];
  readonly options: ReadonlyMap<string, string | true>;
}

/** Arguments the command cannot take: the message names the argument (and the option it was probably meant as). */
export class UsageError extends Error {}

/**
 * Parse a command's arguments against its options, refusing by name any option it does not
 * have, wherever it stands (before or after the store path), so a misspelt flag is never
 * silently ignored. `--` ends the options; what follows is positional.
 */
export function parseCommandArguments(
  argumentsList: readonly string[],
  known: readonly CommandOption[],
): ParsedArguments {
  const all = known.some((option) => option.name === HELP_OPTION.name) ? known : [...known, HELP_OPTION];
  const { tokens } = parseArgs({
    args: [...argumentsList],
    options: Object.fromEntries(
      all.map((option) => [
        option.name,
        {
          type: option.value === undefined ? 'boolean' : 'string',
          ...(option.short === undefined ? {} : { short: option.short }),
        },
      ]),
    ),
    // Not strict: the tokens are checked below, so the refusal can suggest the nearest name.
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const positional: string[] = [];
  const options = new Map<string, string | true>();
  for (const token of tokens) {
    if (token.kind === 'positional') positional.push(token.value);
    if (token.kind !== 'option') continue;
    const option = all.find((candidate) => candidate.name === token.name);
    if (option === undefined) throw new UsageError(unknownOptionMessage(token.rawName, all));
    if (option.value === undefined) {
      if (token.value !== undefined) throw new UsageError(`${token.rawName} takes no value, got "${token.value}"`);
      options.set(option.name, true);
      continue;
    }
    // `--session --dry-run`: the next option is not a value (a negative number still is).
    if (token.value === undefined || (!token.inlineValue && /^--?[A-Za-z]/.test(token.value)))
      throw new UsageError(`--${option.name} needs a value (--${option.name} <${option.value}>)`);
    options.set(option.name, token.value);
  }
  return { positional, options };
}

/** The text value of an option, if it was given one. */
export function optionText(parsed: ParsedArguments, name: string): string | undefined {
  const value = parsed.options.get(name);
  return typeof value === 'string' ? value : undefined;
}

/** Whether an on/off option was given. */
export function optionFlag(parsed: ParsedArguments, name: string): boolean {
  return parsed.options.get(name) === true;
}

function unknownOptionMessage(rawName: string, known: readonly CommandOption[]): string {
  const spelt = rawName.replace(/^-+/, '');
  const nearest = nearestName(
    spelt,
    known.map((option) => option.name),
  );
  const suggestion = nearest === undefined ? '' : ` (did you mean --${nearest}?)`;
  return `unknown option ${rawName}${suggestion}; known: ${known.map((option) => `--${option.name}`).join(', ')}`;
}
