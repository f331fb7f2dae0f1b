#!/usr/bin/env node
/** The `pi-fold` command line: see bin/cli.ts for the command table. */
import { runCli } from './cli.ts';
import { EXIT } from './commands/command-table.ts';
import { failureLines } from './commands/failure-line.ts';

const argumentsList = process.argv.slice(2);
// An error thrown outside any command's promise (an event emitter's) is still one line, not a stack.
const lastWord = (error: unknown): void => {
  console.error(failureLines(argumentsList[0], error));
  process.exit(EXIT.problemsFound);
};
process.on('uncaughtException', lastWord);
process.on('unhandledRejection', lastWord);

process.exitCode = await runCli(argumentsList);
// The command has answered. Whatever a driver still holds open past that (a connection to a
// server that stopped answering, a timer of its own) must not keep the process alive: the
// stores close what they own, and this is the backstop if one does not.
setTimeout(() => process.exit(), 1_000).unref();
