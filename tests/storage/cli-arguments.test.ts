import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { COMMANDS } from '../../bin/cli.ts';
import { sampleEngineState, sampleFoldRecord } from '../../testing/store-fixtures.ts';
import { runCliCaptured } from './support/cli-capture.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';
import { directorySnapshot } from './support/store-snapshots.ts';

/**
 * Every command checks its arguments against the options it declares: a misspelt or unknown
 * flag, before or after the store, is refused by name (exit 2) with the nearest known name,
 * and never read as "run as usual". `--help` answers for every command. A `--session` the
 * store does not hold is refused, not reported as "nothing to do".
 */
const scratch = await scratchDirectory('cli-arguments');
afterAll(() => removeScratch(scratch), 60_000);
const root = join(scratch, 'store');
const SESSION = 'session-held';

beforeAll(async () => {
  const store = new FsFoldStore({ root });
  const sha256 = await store.putBlob(randomBytes(1_000));
  const record = sampleFoldRecord({ parts: [{ kind: 'entry', entryId: 'entry-1', sha256, chars: 1_000 }] });
  await store.putFold(SESSION, record);
  await store.saveState(SESSION, { ...sampleEngineState(SESSION, 4), foldIds: [record.id], pins: [] });
  await store.dispose?.();
});

/** Each command with the arguments it would run on here. */
const RUNNABLE: Record<string, readonly string[]> = {
  verify: [root],
  gc: [root, '--dry-run'],
  repair: [root, '--session', SESSION, '--dry-run'],
  view: [root, '--session', SESSION, '--out', join(scratch, 'never-written.html')],
  replay: [join(scratch, 'never-read.jsonl')],
  doctor: ['--agent-dir', join(scratch, 'no-pi-home')],
};

describe('unknown options', () => {
  test.each(COMMANDS.map((command) => command.name))(
    '%s refuses --bogus after and before the path, by name, with exit 2, and changes nothing',
    async (name) => {
      const runnable = RUNNABLE[name]!;
      const before = await directorySnapshot(root);
      for (const argumentsList of [
        [name, ...runnable, '--bogus'],
        [name, '--bogus', ...runnable],
      ]) {
        const result = await runCliCaptured(argumentsList);
        expect(result.exitCode, argumentsList.join(' ')).toBe(2);
        expect(result.error).toContain(`pi-fold ${name}: unknown option --bogus`);
        expect(result.out).toBe('');
      }
      expect(await directorySnapshot(root)).toEqual(before);
    },
  );

  test('a misspelt option names the one it was probably meant as', async () => {
    const gc = await runCliCaptured(['gc', root, '--dryrun']);
    expect(gc.exitCode).toBe(2);
    expect(gc.error).toContain('unknown option --dryrun (did you mean --dry-run?)');
    const verify = await runCliCaptured(['verify', '--jsn', root]);
    expect(verify.exitCode).toBe(2);
    expect(verify.error).toContain('unknown option --jsn (did you mean --json?)');
    // `verify` takes no --dry-run: refused, not ignored, and the options it does take are listed.
    const dryVerify = await runCliCaptured(['verify', root, '--dry-run']);
    expect(dryVerify.exitCode).toBe(2);
    expect(dryVerify.error).toContain(
      'unknown option --dry-run; known: --namespace, --table, --timeout, --json, --help',
    );
  });

  test('an option that needs a value does not take the next option as one', async () => {
    const result = await runCliCaptured(['repair', root, '--session', '--dry-run']);
    expect(result.exitCode).toBe(2);
    expect(result.error).toContain('--session needs a value (--session <id>)');
    const flagWithValue = await runCliCaptured(['gc', root, '--dry-run=yes']);
    expect(flagWithValue.exitCode).toBe(2);
    expect(flagWithValue.error).toContain('--dry-run takes no value');
  });

  test('an unknown command suggests the nearest one', async () => {
    const result = await runCliCaptured(['verfiy', root]);
    expect(result.exitCode).toBe(2);
    expect(result.error).toContain('pi-fold: unknown command "verfiy" (did you mean verify?)');
  });
});

describe('help', () => {
  test.each(COMMANDS.map((command) => command.name))(
    '%s --help, -h and help <command> print usage, options and an example, exit 0',
    async (name) => {
      const command = COMMANDS.find((candidate) => candidate.name === name)!;
      for (const argumentsList of [
        [name, '--help'],
        [name, '-h'],
        ['help', name],
        [name, ...RUNNABLE[name]!, '--help'],
      ]) {
        const result = await runCliCaptured(argumentsList);
        expect(result.exitCode, argumentsList.join(' ')).toBe(0);
        expect(result.error).toBe('');
        expect(result.out).toContain(`usage: ${command.usage}`);
        for (const option of command.options) expect(result.out).toContain(`--${option.name}`);
        expect(result.out).toMatch(new RegExp(`examples:\\n  pi-fold ${name} `));
      }
    },
  );
});

describe('--session names a session the store holds', () => {
  test('repair refuses a session that does not exist, naming the ones that do, and writes nothing', async () => {
    const before = await directorySnapshot(root);
    for (const dryRun of [[], ['--dry-run']]) {
      const result = await runCliCaptured(['repair', root, '--session', 'nope', ...dryRun]);
      expect(result.exitCode).toBe(1);
      expect(result.error).toContain(`STORE.NOT_FOUND: fs store has no session "nope" (sessions: ${SESSION})`);
      expect(result.out).not.toContain('nothing to repair');
    }
    expect(await directorySnapshot(root)).toEqual(before);
    const held = await runCliCaptured(['repair', root, '--session', SESSION, '--dry-run']);
    expect(held.exitCode, held.error).toBe(0);
  });
});
