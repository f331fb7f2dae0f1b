import { readdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { createClient } from '@keyv/redis';
import sqlite3 from 'sqlite3';
import { sha256Hex } from '../../../core/util/hashing.ts';

/**
 * Databases that belong to someone else, for the read-only guarantee of `verify` and
 * `gc --dry-run`: a SQLite file with its own table, a PostgreSQL table, Redis keys.
 */

/** A SQLite file with an application table of its own (rollback journal, as most apps leave it). */
export async function foreignSqliteFile(path: string): Promise<void> {
  const database = new sqlite3.Database(path);
  const run = (sql: string) =>
    new Promise<void>((resolve, reject) => database.exec(sql, (error) => (error === null ? resolve() : reject(error))));
  await run(
    `CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes(body) VALUES ('keep me'), ('and me');`,
  );
  await new Promise<void>((resolve, reject) => database.close((error) => (error === null ? resolve() : reject(error))));
}

/** Content hash of every file in a directory (a SQLite file and any -wal/-shm beside it). */
export async function filesChecksum(directory: string): Promise<string> {
  const lines: string[] = [];
  for (const name of (await readdir(directory)).sort())
    lines.push(`${name} ${sha256Hex(await readFile(join(directory, name)))}`);
  return lines.join('\n');
}

/** The part of node-postgres used here (it ships no types). */
interface PgClient {
  connect(): Promise<void>;
  query(sql: string, parameters?: readonly unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}

/** A plain PostgreSQL client (the one @keyv/postgres uses), for setting up and inspecting tables. */
export async function postgresClient(url: string): Promise<PgClient> {
  const pg = createRequire(createRequire(import.meta.url).resolve('@keyv/postgres'))('pg') as {
    Client: new (config: object) => PgClient;
  };
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

/** Every row of a table and whether some other table exists, as one comparable string. */
export async function postgresTablesChecksum(client: PgClient, tables: readonly string[]): Promise<string> {
  const lines: string[] = [];
  for (const table of tables) {
    const exists = (await client.query('SELECT to_regclass($1) AS found', [table])).rows[0]?.found;
    if (exists === null) {
      lines.push(`${table} absent`);
      continue;
    }
    const rows = (await client.query(`SELECT * FROM "${table}" ORDER BY 1`)).rows;
    lines.push(`${table} ${sha256Hex(JSON.stringify(rows))}`);
  }
  return lines.join('\n');
}

/** Every key under the given prefixes of a Redis server with its value, as one comparable string. */
export async function redisKeysChecksum(url: string, prefixes: readonly string[]): Promise<string> {
  const client = createClient({ url });
  await client.connect();
  try {
    const lines: string[] = [];
    for (const prefix of prefixes) {
      const keys = (await client.keys(`${prefix}*`)).sort();
      lines.push(`${prefix}: ${keys.length} key(s)`);
      for (const key of keys) lines.push(`${key} ${sha256Hex(String(await client.get(key)))}`);
    }
    return lines.join('\n');
  } finally {
    await client.quit();
  }
}

/** Write plain Redis keys that are not pi-fold's. */
export async function writeForeignRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    await client.set(`${prefix}user:1`, '{"name":"ada"}');
    await client.set(`${prefix}counter`, '41');
  } finally {
    await client.quit();
  }
}
