import { open, readdir, stat } from 'node:fs/promises';
import Keyv from 'keyv';
import { auditFsStore } from '../../adapters/storage-fs/fs-store-audit.ts';
import type { StoreAuditReport } from '../../adapters/storage-shared/store-audit.ts';
import { KeyvConnection } from '../../adapters/storage-keyv/keyv-connection.ts';
import { auditKeyvStore } from '../../adapters/storage-keyv/keyv-store-audit.ts';

/** How to reach a Keyv-backed store for an audit. */
export interface AuditTargetOptions {
  /** Keyv namespace of the store. @default 'pi-fold' */
  readonly namespace?: string;
  /** PostgreSQL table. @default 'keyv' */
  readonly table?: string;
}

/**
 * Audit the store at `target`: a directory (fs store), a SQLite file, or a `redis://` /
 * `postgres://` URL of a shared store. Optional backends are imported only when named.
 */
export async function auditStoreAt(target: string, options: AuditTargetOptions = {}): Promise<{ kind: string; report: StoreAuditReport }> {
  const namespace = options.namespace ?? 'pi-fold';
  if (/^rediss?:\/\//.test(target)) {
    const { default: KeyvRedis } = await import('@keyv/redis');
    return { kind: 'redis', report: await auditKeyv(new Keyv({ store: new KeyvRedis(target), namespace, throwOnErrors: true, useKeyPrefix: false })) };
  }
  if (/^postgres(ql)?:\/\//.test(target)) {
    const { default: KeyvPostgres } = await import('@keyv/postgres');
    return { kind: 'postgres', report: await auditKeyv(new Keyv({ store: new KeyvPostgres({ uri: target, ...(options.table === undefined ? {} : { table: options.table }) }), namespace, throwOnErrors: true })) };
  }
  const info = await stat(target);
  if (info.isDirectory()) {
    const entries = await readdir(target);
    // An unrelated directory is not "a clean, empty store": say so instead of exiting 0.
    if (!['blobs', 'sessions', 'evidence'].some((name) => entries.includes(name))) throw new Error(`${target} holds no pi-fold store (no blobs/, sessions/ or evidence/)`);
    return { kind: 'fs', report: await auditFsStore(target) };
  }
  if (info.isFile() && (await isSqliteFile(target))) {
    const { createSqliteKeyv } = await import('../../adapters/storage-sqlite/create-sqlite-store.ts');
    return { kind: 'sqlite', report: await auditKeyv(createSqliteKeyv({ path: target, namespace })) };
  }
  throw new Error(`${target} is neither a store directory, a SQLite file, nor a redis:// or postgres:// URL`);
}

async function auditKeyv(keyv: Keyv): Promise<StoreAuditReport> {
  const connection = new KeyvConnection({ keyv, ownsConnection: true }, 'keyv');
  try {
    return await auditKeyvStore(connection);
  } finally {
    await connection.dispose();
  }
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
