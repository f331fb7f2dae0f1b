import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../../..');

/** What a CLI run in a child process answered. */
export interface CliAnswer {
  readonly status: number | null;
  readonly out: string;
  readonly error: string;
}

/**
 * The `pi-fold` command line in a child process with `blocker` (a module in this folder) loaded
 * first, so the packages it hides cannot be resolved: the CLI as a machine without them runs it.
 */
export function cliWithBlocker(blocker: string, argumentsList: readonly string[]): CliAnswer {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--import', resolve(import.meta.dirname, blocker), 'bin/pi-fold.ts', ...argumentsList],
    { cwd: root, encoding: 'utf8', timeout: 60_000, env: { ...process.env, PI_FOLD_DEBUG: '' } },
  );
  return { status: result.status, out: result.stdout, error: result.stderr };
}
