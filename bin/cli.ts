import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type CommandHelp,
  GC_HELP,
  REPAIR_HELP,
  REPLAY_HELP,
  VERIFY_HELP,
  VIEW_HELP,
} from './commands/command-help.ts';
import { type CliCommand, type CommandOutput, EXIT } from './commands/command-table.ts';

/** A command of the table: its help, and its code loaded only when it is chosen. */
interface LazyCommand extends CommandHelp {
  load(): Promise<CliCommand>;
}

/**
 * Every command of the `pi-fold` CLI. Each is imported only when it runs, so `verify` and
 * `gc` start without Pi or the tokenizer installed (those are `replay`'s alone).
 */
export const COMMANDS: readonly LazyCommand[] = [
  { ...VERIFY_HELP, load: async () => (await import('./commands/verify-command.ts')).verifyCommand },
  { ...GC_HELP, load: async () => (await import('./commands/gc-command.ts')).gcCommand },
  { ...REPAIR_HELP, load: async () => (await import('./commands/repair-command.ts')).repairCommand },
  { ...VIEW_HELP, load: async () => (await import('./commands/view-command.ts')).viewCommand },
  { ...REPLAY_HELP, load: async () => (await import('./commands/replay-command.ts')).replayCommand },
];

const consoleOutput: CommandOutput = { out: (line) => console.log(line), error: (line) => console.error(line) };

/** Run `pi-fold <command> …` and return the exit code (see EXIT in commands/command-table.ts). */
export async function runCli(argumentsList: readonly string[], output: CommandOutput = consoleOutput): Promise<number> {
  const [name, ...rest] = argumentsList;
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command !== undefined) {
    const loaded = await loadCommand(command, output);
    return loaded === undefined ? EXIT.missingPackage : loaded.run(rest, output);
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    output.out(packageVersion());
    return EXIT.ok;
  }
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    output.out(helpText());
    return EXIT.ok;
  }
  output.error(`pi-fold: unknown command ${JSON.stringify(name)}\n\n${helpText()}`);
  return EXIT.usage;
}

/** Import a command; a missing optional package is reported by name with the install line. */
async function loadCommand(command: LazyCommand, output: CommandOutput): Promise<CliCommand | undefined> {
  try {
    return await command.load();
  } catch (error) {
    const missing = missingPackageOf(error);
    if (missing === undefined) throw error;
    output.error(
      `pi-fold ${command.name}: the package "${missing}" is not installed; ${command.name} needs ${command.needs.join(' and ')}.\ninstall with: npm install ${command.needs.join(' ')}`,
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

function helpText(): string {
  const lines = COMMANDS.map(
    (command) => `  ${command.name.padEnd(10)} ${command.summary}\n  ${' '.repeat(10)} ${command.usage}`,
  );
  return [
    `pi-fold ${packageVersion()}: lossless context folding for coding agents`,
    '',
    'usage: pi-fold <command> [arguments]',
    '       pi-fold --help | --version',
    '',
    'commands:',
    ...lines,
    '',
    `exit codes: ${EXIT.ok} ok · ${EXIT.problemsFound} problems found (verify: a damaged store; gc: stopped by an error; replay: an arm failed) · ${EXIT.usage} bad arguments or a store that cannot be opened · ${EXIT.missingPackage} an optional package the command needs is not installed`,
  ].join('\n');
}

/** The version in pi-fold's own package.json, found upwards from this file (bin/ in a checkout, dist/bin/ in the package). */
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
