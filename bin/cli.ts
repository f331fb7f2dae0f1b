import { EXIT, type CliCommand, type CommandOutput } from './commands/command-table.ts';
import { gcCommand } from './commands/gc-command.ts';
import { replayCommand } from './commands/replay-command.ts';
import { verifyCommand } from './commands/verify-command.ts';

/** Every command of the `pi-fold` CLI. Add a command by adding it here (e.g. replay, gc). */
export const COMMANDS: readonly CliCommand[] = [verifyCommand, gcCommand, replayCommand];

const consoleOutput: CommandOutput = { out: (line) => console.log(line), error: (line) => console.error(line) };

/** Run `pi-fold <command> …` and return the exit code. */
export async function runCli(argumentsList: readonly string[], output: CommandOutput = consoleOutput): Promise<number> {
  const [name, ...rest] = argumentsList;
  const command = COMMANDS.find((candidate) => candidate.name === name);
  if (command !== undefined) return command.run(rest, output);
  const help = ['usage: pi-fold <command> [arguments]', '', 'commands:', ...COMMANDS.map((candidate) => `  ${candidate.name.padEnd(10)} ${candidate.summary}\n  ${' '.repeat(10)} ${candidate.usage}`)].join('\n');
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    output.out(help);
    return EXIT.ok;
  }
  output.error(`pi-fold: unknown command ${JSON.stringify(name)}\n\n${help}`);
  return EXIT.usage;
}
