#!/usr/bin/env node
/** The `pi-fold` command line: see bin/cli.ts for the command table. */
import { runCli } from './cli.ts';

process.exitCode = await runCli(process.argv.slice(2));
