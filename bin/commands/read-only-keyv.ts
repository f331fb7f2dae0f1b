import { EventEmitter } from 'node:events';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import Keyv from 'keyv';
import { loadKeyvSqlite } from '../../adapters/backends/storage-sqlite/load-keyv-sqlite.ts';
import { FoldError } from '../../core/fold-error.ts';
import { importStorePackage, resolveStorePackage } from './store-packages.ts';

/**
 * Keyv instances that can only read, for `verify` and `gc --dry-run`. The stock adapters
 * write as they connect (`CREATE TABLE IF NOT EXISTS`, a WAL pragma), which turns an audit of
 * a file or database that is not a store into a write to it. These open the backend read-only
 * at the driver (SQLite `OPEN_READONLY`, a PostgreSQL session with read-only transactions),
 * look for the table before any query, and refuse every write method.
 */

/** How a target holding no pi-fold store is refused. */
export function noStoreError(target: string, why: string): FoldError {
  return new FoldError('SETTINGS.INVALID', `${target} holds no pi-fold store (${why}); nothing was read or written`, {
    details: { target },
  });
}

/**
 * How a target whose backend holds no key at all is named: a store every key of which was
 * evicted or deleted reads as that loss, not as "no store" (a wrong namespace on a backend
 * holding other keys is still refused as holding no pi-fold store).
 */
export function emptyStoreError(target: string, namespace: string): FoldError {
  return new FoldError(
    'STORE.NOT_FOUND',
    `${target} is an empty store: nothing is left under namespace ${namespace} and the backend holds no other key (every key evicted or deleted, or never written); if sessions were kept here, their folds and state are lost`,
    { details: { target, emptyStore: true } },
  );
}

/** Whether a backend opened for a maintenance command holds any key at all, in any namespace. */
export async function backendHoldsAnyKey(keyv: Keyv): Promise<boolean> {
  const adapter = keyv.store as { holdsAnyRow?: () => Promise<boolean>; client?: { dbSize?: () => Promise<number> } };
  if (typeof adapter.holdsAnyRow === 'function') return adapter.holdsAnyRow();
  if (typeof adapter.client?.dbSize === 'function') return (await adapter.client.dbSize()) > 0;
  // A backend this cannot ask is taken to hold something: refused as before, never called empty unasked.
  return true;
}

type RunQuery = (sql: string, parameters: readonly unknown[]) => Promise<readonly { key: string; value: string }[]>;

const refuseWrite = (dialect: string) => async (): Promise<never> => {
  throw new FoldError('STORE.WRITE_FAILED', `${dialect} store was opened read-only; this command never writes`);
};

/** A Keyv storage adapter over one key/value table that only selects. */
class ReadOnlyTableAdapter extends EventEmitter {
  readonly opts: { readonly dialect: string; readonly url: string };
  namespace: string | undefined;

  constructor(
    private readonly dialect: 'sqlite' | 'postgres',
    private readonly table: string,
    private readonly run: RunQuery,
    private readonly close: () => Promise<void>,
  ) {
    super();
    this.opts = { dialect, url: `${dialect}://` };
  }

  set(): Promise<never> {
    return refuseWrite(this.dialect)();
  }

  setMany(): Promise<never> {
    return refuseWrite(this.dialect)();
  }

  delete(): Promise<never> {
    return refuseWrite(this.dialect)();
  }

  deleteMany(): Promise<never> {
    return refuseWrite(this.dialect)();
  }

  clear(): Promise<never> {
    return refuseWrite(this.dialect)();
  }

  private placeholder(position: number): string {
    return this.dialect === 'postgres' ? `$${position}` : '?';
  }

  async get(key: string): Promise<string | undefined> {
    const rows = await this.run(`SELECT key, value FROM ${this.table} WHERE key = ${this.placeholder(1)}`, [key]);
    return rows[0]?.value;
  }

  async has(key: string): Promise<boolean> {
    return (await this.get(key)) !== undefined;
  }

  /** Whether the table holds any row, of any namespace. */
  async holdsAnyRow(): Promise<boolean> {
    return (await this.run(`SELECT key, value FROM ${this.table} LIMIT 1`, [])).length > 0;
  }

  /** Keys of `namespace` in key order, a page at a time (keyset paging: stable under concurrent writers). */
  async *iterator(namespace: string | undefined): AsyncGenerator<[string, string]> {
    const prefix = namespace === undefined ? '' : `${namespace}:`;
    const pageSize = 200;
    let after = '';
    for (;;) {
      const sql = `SELECT key, value FROM ${this.table} WHERE substr(key, 1, ${this.placeholder(1)}) = ${this.placeholder(2)} AND key > ${this.placeholder(3)} ORDER BY key LIMIT ${pageSize}`;
      const rows = await this.run(sql, [prefix.length, prefix, after]);
      for (const row of rows) yield [row.key, row.value];
      if (rows.length < pageSize) return;
      after = rows[rows.length - 1]!.key;
    }
  }

  async disconnect(): Promise<void> {
    await this.close();
  }
}

const keyvOver = (store: object, namespace: string) =>
  new Keyv({ store: store as never, namespace, throwOnErrors: true });

/** The SQLite driver @keyv/sqlite itself uses, so both open the file the same way. */
function sqliteDriver(): typeof import('sqlite3') {
  // @keyv/sqlite is an optional package: when it is missing, say which one to install.
  loadKeyvSqlite();
  const fromAdapter = createRequire(createRequire(import.meta.url).resolve('@keyv/sqlite'));
  return fromAdapter('sqlite3') as typeof import('sqlite3');
}

/** Open a SQLite file read-only; refuses (without touching the file) when it has no such table. */
export async function openReadOnlySqliteKeyv(path: string, namespace: string, table = 'keyv'): Promise<Keyv> {
  const sqlite3 = sqliteDriver();
  // A read-only connection to a WAL database still creates `-wal` and `-shm` beside it and
  // leaves them. No `-wal` means no connection has the file open, so it is opened immutable
  // (no locks, no side files): the audit reads the file as it is now. Otherwise a writer is
  // live, and the read-only connection shares its existing side files.
  const live = existsSync(`${path}-wal`);
  const address = live
    ? path
    : `file:${encodeURI(resolve(path)).replace(/\?/g, '%3F').replace(/#/g, '%23')}?immutable=1`;
  const flags = sqlite3.OPEN_READONLY | (live ? 0 : sqlite3.OPEN_URI);
  const database = await new Promise<import('sqlite3').Database>((resolveOpen, reject) => {
    const opened = new sqlite3.Database(address, flags, (error) =>
      error === null ? resolveOpen(opened) : reject(error),
    );
  });
  const run: RunQuery = (sql, parameters) =>
    new Promise((resolve, reject) =>
      database.all(sql, parameters as unknown[], (error, rows) =>
        error === null ? resolve(rows as { key: string; value: string }[]) : reject(error),
      ),
    );
  const close = () =>
    new Promise<void>((resolve, reject) => database.close((error) => (error === null ? resolve() : reject(error))));
  try {
    const found = await new Promise<unknown[]>((resolve, reject) =>
      database.all(`SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?`, [table], (error, rows) =>
        error === null ? resolve(rows) : reject(error),
      ),
    );
    if (found.length === 0) throw noStoreError(path, `no table ${table}`);
  } catch (error) {
    await close();
    throw error;
  }
  return keyvOver(new ReadOnlyTableAdapter('sqlite', quoteIdentifier(table), run, close), namespace);
}

/** Open a PostgreSQL database in read-only transactions; refuses when the table does not exist. */
export async function openReadOnlyPostgresKeyv(
  uri: string,
  namespace: string,
  table = 'keyv',
  timeoutMs = DEFAULT_ANSWER_MS,
): Promise<Keyv> {
  const fromAdapter = createRequire(resolveStorePackage('@keyv/postgres', 'a postgres:// store'));
  const pg = fromAdapter('pg') as { Client: new (config: object) => PgClient };
  // The server itself refuses any write in this session, whatever a query says; the driver's
  // own timeouts bound the connection and each query, so a server that never answers ends the command.
  const client = new pg.Client({
    connectionString: uri,
    options: '-c default_transaction_read_only=on',
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
  });
  await client.connect();
  const close = () => client.end();
  try {
    const found = await client.query('SELECT to_regclass($1) AS exists', [table]);
    if (found.rows[0]?.exists === null || found.rows[0]?.exists === undefined)
      throw noStoreError(redactUri(uri), `no table ${table}`);
  } catch (error) {
    await close();
    throw error;
  }
  const run: RunQuery = async (sql, parameters) =>
    (await client.query(sql, parameters)).rows as { key: string; value: string }[];
  return keyvOver(new ReadOnlyTableAdapter('postgres', quoteIdentifier(table), run, close), namespace);
}

/**
 * A `@keyv/redis` adapter that fails fast: a command to a server that is down fails at once
 * instead of waiting in node-redis's offline queue, a connection is tried once, within
 * `connectTimeout`, and a failed command throws instead of reading as a miss. A maintenance
 * command then says the server cannot be reached rather than hanging.
 */
export async function failFastRedisAdapter(url: string, timeoutMs = DEFAULT_ANSWER_MS) {
  const { default: KeyvRedis } = await importStorePackage(
    '@keyv/redis',
    'a redis:// store',
    () => import('@keyv/redis'),
  );
  const connectTimeout = Math.min(REDIS_CONNECT_TIMEOUT_MS, timeoutMs);
  return new KeyvRedis(
    { url, disableOfflineQueue: true, socket: { connectTimeout, reconnectStrategy: false } },
    { throwOnConnectError: true, throwOnErrors: true },
  );
}

/** How long a maintenance command waits for a Redis server to accept its connection. */
const REDIS_CONNECT_TIMEOUT_MS = 5_000;

/** How long one answer may take when the command gave no `--timeout` (bin/commands/store-deadline.ts). */
const DEFAULT_ANSWER_MS = 15_000;

/** A Redis-backed Keyv whose adapter refuses every write (Redis connects without writing). */
export async function openReadOnlyRedisKeyv(url: string, namespace: string, timeoutMs?: number): Promise<Keyv> {
  const adapter = await failFastRedisAdapter(url, timeoutMs);
  for (const method of ['set', 'setMany', 'delete', 'deleteMany', 'clear'] as const) {
    Object.defineProperty(adapter, method, { value: refuseWrite('redis') });
  }
  return new Keyv({ store: adapter, namespace, throwOnErrors: true, useKeyPrefix: false });
}

/** The part of node-postgres's Client used here (it ships no types of its own). */
interface PgClient {
  connect(): Promise<void>;
  query(sql: string, parameters: readonly unknown[]): Promise<{ rows: readonly Record<string, unknown>[] }>;
  end(): Promise<void>;
}

function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** A URL fit for a message: no password. */
export function redactUri(uri: string): string {
  try {
    const parsed = new URL(uri);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return uri;
  }
}
