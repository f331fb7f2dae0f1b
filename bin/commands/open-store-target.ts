import { open, readdir, stat } from 'node:fs/promises';
import Keyv from 'keyv';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { auditFsStore } from '../../adapters/backends/storage-fs/fs-store-audit.ts';
import { FsStoreMaintenance } from '../../adapters/backends/storage-fs/fs-store-maintenance.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { auditKeyvStore } from '../../adapters/backends/storage-keyv/keyv-store-audit.ts';
import { KeyvStoreMaintenance } from '../../adapters/backends/storage-keyv/keyv-store-maintenance.ts';
import type { StoreAuditReport } from '../../adapters/backends/storage-shared/store-audit.ts';
import type { StoreMaintenance } from '../../adapters/backends/storage-shared/store-maintenance.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { type CommandOutput, EXIT } from './command-table.ts';
import {
  backendHoldsAnyKey,
  emptyStoreError,
  failFastRedisAdapter,
  noStoreError,
  openReadOnlyPostgresKeyv,
  openReadOnlyRedisKeyv,
  openReadOnlySqliteKeyv,
  redactUri,
} from './read-only-keyv.ts';
import { storeTimeoutMs, unansweredLine } from './store-deadline.ts';
import { isPackageMissing } from './store-packages.ts';

/** How to reach a Keyv-backed store. */
export interface StoreTargetOptions {
  /** Keyv namespace of the store. @default 'pi-fold' */
  readonly namespace?: string;
  /** SQL table (SQLite, PostgreSQL). @default 'keyv' */
  readonly table?: string;
  /** Longest wait for any one answer of a server (connecting included), in ms. @default 15000 */
  readonly timeoutMs?: number;
}

/** `--namespace`, `--table` and `--timeout` from a command's parsed options, as `openStoreTarget` takes them. */
export function storeTargetOptionsOf(options: ReadonlyMap<string, string | true>): StoreTargetOptions {
  const namespace = options.get('namespace');
  const table = options.get('table');
  const timeout = options.get('timeout');
  return {
    ...(typeof namespace === 'string' ? { namespace } : {}),
    ...(typeof table === 'string' ? { table } : {}),
    timeoutMs: storeTimeoutMs(typeof timeout === 'string' ? timeout : undefined),
  };
}

/** `read-only` for `verify` and `gc --dry-run`: not one byte of the target may change. */
export type StoreAccess = 'read-only' | 'read-write';

/** A store opened by a maintenance command; the caller disposes `store`. */
export interface OpenedStoreTarget {
  readonly kind: 'fs' | 'sqlite' | 'redis' | 'postgres';
  readonly store: FoldStore;
  /** Re-hash everything the store holds (reads only). */
  audit(): Promise<StoreAuditReport>;
  /** What `repair` needs beyond the port: keys of a session, setting damage aside, mending a log. */
  readonly maintenance: StoreMaintenance;
  /**
   * What the server warned of as it was opened: a Redis whose `maxmemory-policy` may evict
   * keys. The maintenance commands still run there (verify is how evicted keys are found);
   * the runtime refuses such a server.
   */
  readonly warnings: readonly string[];
}

/**
 * Open the store at `target`: a store directory, a SQLite file, or a `redis://` /
 * `postgres://` URL. A target that holds no pi-fold store (a foreign directory, a SQLite file
 * or database without the table, an empty namespace) is refused before anything is written,
 * whatever `access` asks for: gc must not create a table in someone else's file either.
 */
export async function openStoreTarget(
  target: string,
  options: StoreTargetOptions,
  access: StoreAccess,
): Promise<OpenedStoreTarget> {
  const namespace = options.namespace ?? 'pi-fold';
  const timeoutMs = options.timeoutMs ?? storeTimeoutMs(undefined);
  const probe = await openKeyvTarget(target, { namespace, table: options.table, timeoutMs }, 'read-only');
  if (probe.kind === 'fs') return fsTarget(probe.root);
  const warnings: string[] = [];
  const storeOf = (keyv: Keyv, kind: KeyvKind) =>
    new KeyvFoldStore({
      keyv,
      name: kind,
      ownsConnection: true,
      callTimeoutMs: timeoutMs,
      evictingServer: 'warn',
      onWarning: (message) => {
        if (!warnings.includes(message)) warnings.push(message);
      },
    });
  const readOnly = storeOf(probe.keyv, probe.kind);
  try {
    if (!(await holdsAnyValue(readOnly))) {
      const named = probe.kind === 'sqlite' ? target : redactUri(target);
      if (!(await backendHoldsAnyKey(probe.keyv))) throw emptyStoreError(named, namespace);
      throw noStoreError(named, `nothing under namespace ${namespace}`);
    }
  } catch (error) {
    await readOnly.dispose();
    throw error;
  }
  if (access === 'read-only') return keyvTarget(probe.kind, readOnly, warnings);
  await readOnly.dispose();
  const writable = await openKeyvTarget(target, { namespace, table: options.table, timeoutMs }, 'read-write');
  if (writable.kind === 'fs') return fsTarget(writable.root);
  return keyvTarget(writable.kind, storeOf(writable.keyv, writable.kind), warnings);
}

type KeyvKind = 'sqlite' | 'redis' | 'postgres';

type KeyvTarget = { readonly kind: 'fs'; readonly root: string } | { readonly kind: KeyvKind; readonly keyv: Keyv };

/** Where a Keyv store keeps its keys, and how long one answer of its server may take. */
interface KeyvPlace {
  readonly namespace: string;
  readonly table: string | undefined;
  readonly timeoutMs: number;
}

async function openKeyvTarget(target: string, place: KeyvPlace, access: StoreAccess): Promise<KeyvTarget> {
  const { namespace, table, timeoutMs } = place;
  if (/^rediss?:\/\//.test(target)) {
    if (access === 'read-only')
      return { kind: 'redis', keyv: await openReadOnlyRedisKeyv(target, namespace, timeoutMs) };
    return {
      kind: 'redis',
      keyv: new Keyv({
        store: await failFastRedisAdapter(target, timeoutMs),
        namespace,
        throwOnErrors: true,
        useKeyPrefix: false,
      }),
    };
  }
  if (/^postgres(ql)?:\/\//.test(target)) {
    if (access === 'read-only')
      return { kind: 'postgres', keyv: await openReadOnlyPostgresKeyv(target, namespace, table, timeoutMs) };
    const { default: KeyvPostgres } = await import('@keyv/postgres');
    // The driver's own timeouts (handed to its pool) bound the connection and each query.
    const deadlines = { connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs };
    return {
      kind: 'postgres',
      keyv: new Keyv({
        store: new KeyvPostgres({
          uri: target,
          iterationLimit: 500,
          ...deadlines,
          ...(table === undefined ? {} : { table }),
        } as ConstructorParameters<typeof KeyvPostgres>[0]),
        namespace,
        throwOnErrors: true,
      }),
    };
  }
  const info = await stat(target);
  if (info.isDirectory()) {
    const entries = await readdir(target);
    if (!['blobs', 'sessions', 'evidence'].some((name) => entries.includes(name)))
      throw noStoreError(target, 'no blobs/, sessions/ or evidence/');
    return { kind: 'fs', root: target };
  }
  if (info.isFile() && (await isSqliteFile(target))) {
    if (access === 'read-only') return { kind: 'sqlite', keyv: await openReadOnlySqliteKeyv(target, namespace) };
    const { createSqliteKeyv } = await import('../../adapters/backends/storage-sqlite/create-sqlite-store.ts');
    // The file is the user's: maintenance leaves its journal mode as it found it.
    return { kind: 'sqlite', keyv: createSqliteKeyv({ path: target, namespace, journalMode: 'keep' }) };
  }
  throw new Error(`${target} is neither a store directory, a SQLite file, nor a redis:// or postgres:// URL`);
}

function fsTarget(root: string): OpenedStoreTarget {
  const store = new FsFoldStore({ root });
  return {
    kind: 'fs',
    store,
    audit: () => auditFsStore(root),
    maintenance: new FsStoreMaintenance(store),
    warnings: [],
  };
}

function keyvTarget(kind: KeyvKind, store: KeyvFoldStore, warnings: readonly string[]): OpenedStoreTarget {
  return {
    kind,
    store,
    audit: () => auditKeyvStore(store.connection),
    maintenance: new KeyvStoreMaintenance(store),
    warnings,
  };
}

async function holdsAnyValue(store: KeyvFoldStore): Promise<boolean> {
  for await (const entry of store.connection.entries('look for')) {
    void entry;
    return true;
  }
  return false;
}

/** Whether `path` starts with the SQLite file header. */
export async function isSqliteFile(path: string): Promise<boolean> {
  const handle = await open(path, 'r');
  try {
    const header = Buffer.alloc(16);
    await handle.read(header, 0, 16, 0);
    return header.toString('latin1') === 'SQLite format 3\0';
  } finally {
    await handle.close();
  }
}

/** A command that could not open its target ends with this exit code, its reason already printed. */
export interface NotOpened {
  readonly exitCode: number;
}

/**
 * Open a command's target from its parsed options, or print why it cannot be opened (the
 * target named) and return the exit code: `EXIT.noAnswer` for a server that did not answer
 * in time, else `EXIT.usage`.
 */
export async function openTargetOrExplain(
  command: string,
  target: string,
  options: ReadonlyMap<string, string | true>,
  access: StoreAccess,
  output: Pick<CommandOutput, 'error'>,
): Promise<OpenedStoreTarget | NotOpened> {
  try {
    const opened = await openStoreTarget(target, storeTargetOptionsOf(options), access);
    for (const warning of opened.warnings) output.error(`pi-fold ${command}: ${warning}`);
    return opened;
  } catch (error) {
    // A missing driver is not the target's fault: the CLI names the package and exits 3.
    if (isPackageMissing(error)) throw error;
    return { exitCode: explainNotOpened(command, target, error, output) };
  }
}

/** Print why `target` could not be opened; returns the exit code that says which case it was. */
export function explainNotOpened(
  command: string,
  target: string,
  error: unknown,
  output: Pick<CommandOutput, 'error'>,
): number {
  const late = unansweredLine(command, target, error, 'nothing was read or written');
  if (late !== undefined) {
    output.error(late);
    return EXIT.noAnswer;
  }
  output.error(`pi-fold ${command}: cannot open ${target}: ${(error as Error).message}`);
  return EXIT.usage;
}
