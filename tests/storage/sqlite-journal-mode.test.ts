import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sqlite3 from 'sqlite3';
import { afterAll, describe, expect, test } from 'vitest';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import { sampleEngineState } from '../../testing/store-fixtures.ts';
import { runCliCaptured } from './support/cli-capture.ts';
import { filesChecksum } from './support/foreign-targets.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

/**
 * `gc` and `repair` open a SQLite store read-write, but a file is the user's: they never
 * change its journal mode. A damaged store they stop on (exit 1) is left byte for byte as it
 * was, rollback journal and all, rather than switched to WAL on the way in.
 */
const scratch = await scratchDirectory('sqlite-journal');
afterAll(() => removeScratch(scratch), 60_000);

const run = (database: sqlite3.Database, sql: string) =>
  new Promise<void>((resolve, reject) => database.exec(sql, (error) => (error === null ? resolve() : reject(error))));
const close = (database: sqlite3.Database) =>
  new Promise<void>((resolve, reject) => database.close((error) => (error === null ? resolve() : reject(error))));

/** The file format's write version in the header: 1 for a rollback journal, 2 for WAL. */
async function journalByte(path: string): Promise<number> {
  return (await readFile(path))[18]!;
}

/** A pi-fold SQLite store whose one session lists a fold with no record, then set to a rollback journal. */
async function damagedStoreInRollbackMode(directory: string): Promise<string> {
  const path = join(directory, 'folds.sqlite');
  const store = createSqliteFoldStore({ path });
  await store.saveState('s1', sampleEngineState('s1', 3));
  await store.dispose();
  const database = new sqlite3.Database(path);
  await run(database, 'PRAGMA journal_mode=DELETE');
  await close(database);
  return path;
}

describe('sqlite: gc and repair keep the file as the user left it', () => {
  test('a gc that stops on a missing record leaves the file, journal mode included, unchanged', async () => {
    const directory = await scratchDirectory('sqlite-gc-stop');
    const path = await damagedStoreInRollbackMode(directory);
    expect(await journalByte(path)).toBe(1);
    const before = await filesChecksum(directory);
    const gc = await runCliCaptured(['gc', path, '--grace-minutes', '0']);
    expect(gc.exitCode, gc.error).toBe(1);
    expect(gc.error).toMatch(/which has no record/);
    expect(await journalByte(path)).toBe(1);
    expect(await filesChecksum(directory)).toBe(before);
  });

  test('a repair that stops on an unknown session leaves the file unchanged', async () => {
    const directory = await scratchDirectory('sqlite-repair-stop');
    const path = await damagedStoreInRollbackMode(directory);
    const before = await filesChecksum(directory);
    const repair = await runCliCaptured(['repair', path, '--session', 'nobody']);
    expect(repair.exitCode, repair.error).toBe(1);
    expect(await journalByte(path)).toBe(1);
    expect(await filesChecksum(directory)).toBe(before);
  });
});
