import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nearestName } from '../composition/option-checks.ts';
import { findInstalledPi, PI_LINES, usePiLine } from '../lab/peers/pi-host-lines.ts';
import {
  type CommandHelp,
  DOCTOR_HELP,
  GC_HELP,
  REPAIR_HELP,
  REPLAY_HELP,
  VERIFY_HELP,
  VIEW_HELP,
} from './commands/command-help.ts';
import { HELP_OPTION, parseCommandArguments, UsageError } from './commands/command-options.ts';
import { type CliCommand, type CommandOutput, EXIT } from './commands/command-table.ts';
import { failureLines } from './commands/failure-line.ts';
import { isPackageMissing } from './commands/store-packages.ts';

/** A command of the table: its help, and its code loaded only when it is chosen. */
interface LazyCommand extends CommandHelp {
  load(): Promise<CliCommand>;
}

/** Thrown by a command's loader when an optional package it needs is not installed. */
class PackageMissing extends Error {}

/**
 * Every command of the `pi-fold` CLI. Each is imported only when it runs, so `verify` and
 * `gc` start without Pi or the tokenizer installed (those are `replay`'s alone).
 */
export const COMMANDS: readonly LazyCommand[] = [
  { ...VERIFY_HELP, load: async () => (await import('./commands/verify-command.ts')).verifyCommand },
  { ...GC_HELP, load: async () => (await import('./commands/gc-command.ts')).gcCommand },
  { ...REPAIR_HELP, load: async () => (await import('./commands/repair-command.ts')).repairCommand },
  { ...VIEW_HELP, load: async () => (await import('./commands/view-command.ts')).viewCommand },
  { ...REPLAY_HELP, load: loadReplay },
  { ...DOCTOR_HELP, load: async () => (await import('./commands/doctor-command.ts')).doctorCommand },
];

/** The replay runs on whichever supported Pi is installed; the lab's Pi imports are pointed at it first. */
async function loadReplay(): Promise<CliCommand> {
  const installed = findInstalledPi();
  if (installed === undefined)
    throw new PackageMissing(
      `no supported Pi is installed (neither ${PI_LINES.map((line) => `${line.scope}/pi-coding-agent`).join(' nor ')})`,
    );
  usePiLine(installed);
  return (await import('./commands/replay-command.ts')).replayCommand;
}

const consoleOutput: CommandOutput = { out: (line) => console.log(line), error: (line) => console.error(line) };

/**
 * Run `pi-fold <command> …` and return the exit code (see EXIT in commands/command-table.ts).
 * Nothing escapes as a stack: an error no command expected is one line and exit 1.
 */
export async function runCli(argumentsList: readonly string[], output: CommandOutput = consoleOutput): Promise<number> {
  const [name, ...rest] = argumentsList;
  try {
    return await dispatch(name, rest, output);
  } catch (error) {
    output.error(failureLines(COMMANDS.some((command) => command.name === name) ? name : undefined, error));
    return EXIT.problemsFound;
  }
}

async function dispatch(name: string | undefined, rest: readonly string[], output: CommandOutput): Promise<number> {
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command !== undefined) return runCommand(command, rest, output);
  if (name === '--version' || name === '-v' || name === 'version') {
    output.out(packageVersion());
    return EXIT.ok;
  }
  if (name === 'help' && rest[0] !== undefined) return dispatch(rest[0], ['--help'], output);
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    output.out(helpText());
    return EXIT.ok;
  }
  const nearest = nearestName(
    name,
    COMMANDS.map((candidate) => candidate.name),
  );
  output.error(
    `pi-fold: unknown command ${JSON.stringify(name)}${nearest === undefined ? '' : ` (did you mean ${nearest}?)`}\n\n${helpText()}`,
  );
  return EXIT.usage;
}

async function runCommand(command: LazyCommand, rest: readonly string[], output: CommandOutput): Promise<number> {
  // Help is answered before the arguments are checked or the command loaded: it needs no optional package.
  const optionsEnd = rest.indexOf('--');
  const options = optionsEnd < 0 ? rest : rest.slice(0, optionsEnd);
  if (options.includes(`--${HELP_OPTION.name}`) || options.includes(`-${HELP_OPTION.short}`)) {
    output.out(commandHelpText(command));
    return EXIT.ok;
  }
  let parsed: ReturnType<typeof parseCommandArguments>;
  try {
    parsed = parseCommandArguments(rest, command.options);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    output.error(
      `pi-fold ${command.name}: ${error.message}\nusage: ${command.usage}\n(pi-fold ${command.name} --help explains each option)`,
    );
    return EXIT.usage;
  }
  const loaded = await loadCommand(command, output);
  if (loaded === undefined) return EXIT.missingPackage;
  try {
    return await loaded.run(parsed, output);
  } catch (error) {
    // A store's driver is found missing only once the target says which one it needs.
    if (!isPackageMissing(error)) throw error;
    output.error(`pi-fold ${command.name}: ${error.message}`);
    return EXIT.missingPackage;
  }
}

/** Import a command; a missing optional package is reported by name with the install line. */
async function loadCommand(command: LazyCommand, output: CommandOutput): Promise<CliCommand | undefined> {
  try {
    return await command.load();
  } catch (error) {
    const packageName = missingPackageOf(error);
    if (!(error instanceof PackageMissing) && packageName === undefined) throw error;
    const why = error instanceof PackageMissing ? error.message : `the package "${packageName}" is not installed`;
    output.error(
      [
        `pi-fold ${command.name}: ${why}; ${command.name} needs ${command.needs.join(' and ')}.`,
        'install with one of:',
        ...command.installLines.map((line) => `  ${line}`),
      ].join('\n'),
    );
    return undefined;
  }
}

/** The bare package name of an ERR_MODULE_NOT_FOUND for a package (not for a file of ours). */
export function missingPackageOf(error: unknown): string | undefined {
  if ((error as { code?: unknown })?.code !== 'ERR_MODULE_NOT_FOUND') return undefined;
  const match = /Cannot find package '([^']+)'/.exec((error as Error).message);
  return match?.[1];
}

const EXIT_CODES_LINE = `exit codes: ${EXIT.ok} ok · ${EXIT.problemsFound} problems found (verify: a damaged store; gc: stopped by an error; replay: an arm failed; doctor: a problem in the Pi install) or an unexpected error · ${EXIT.usage} bad arguments or an input or store that cannot be opened · ${EXIT.missingPackage} an optional package the command needs is not installed · ${EXIT.noAnswer} the store did not answer within --timeout`;

function helpText(): string {
  const lines = COMMANDS.map(
    (command) => `  ${command.name.padEnd(10)} ${command.summary}\n  ${' '.repeat(10)} ${command.usage}`,
  );
  return [
    `pi-fold ${packageVersion()}: lossless context folding for coding agents`,
    '',
    'usage: pi-fold <command> [arguments]',
    '       pi-fold <command> --help | pi-fold help <command>',
    '       pi-fold --help | --version',
    '',
    'commands:',
    ...lines,
    '',
    EXIT_CODES_LINE,
    'PI_FOLD_DEBUG=1 adds the stack trace to an unexpected error.',
  ].join('\n');
}

/** One command's usage, each option with what it does, an example, and what it needs installed. */
export function commandHelpText(command: CommandHelp): string {
  const options = [...command.options, HELP_OPTION].map((option) => {
    const spelt = `${option.short === undefined ? '' : `-${option.short}, `}--${option.name}${option.value === undefined ? '' : ` <${option.value}>`}`;
    return `  ${spelt.padEnd(28)} ${option.description}`;
  });
  return [
    `pi-fold ${command.name}: ${command.summary}`,
    '',
    `usage: ${command.usage}`,
    '',
    'options:',
    ...options,
    '',
    'examples:',
    ...command.examples.map((example) => `  ${example}`),
    ...(command.needs.length === 0
      ? []
      : ['', `needs: ${command.needs.join(' and ')}`, ...command.installLines.map((line) => `  ${line}`)]),
    '',
    EXIT_CODES_LINE,
  ].join('\n');
}

/**
 * The version in pi-fold's own package.json, found upwards from this file (bin/ in a checkout,
 * dist/bin/ in the package).
 */
function packageVersion(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 4; depth += 1) {
    const candidate = join(directory, 'package.json');
    if (existsSync(candidate)) {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'pi-fold' && typeof manifest.version === 'string') return manifest.version;
    }
    directory = dirname(directory);
  }
  return 'unknown';
}
