import { readdir, stat } from 'node:fs/promises';
import Keyv from 'keyv';
import { FsFoldStore } from '../../adapters/storage-fs/fs-fold-store.ts';
import { KeyvFoldStore } from '../../adapters/storage-keyv/keyv-fold-store.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { isSqliteFile, type AuditTargetOptions } from './open-store-for-audit.ts';

/**
 * Open the FoldStore at `target` for maintenance, addressed exactly as `verify` addresses it:
 * a store directory, a SQLite file, or a `redis://` / `postgres://` URL. The caller disposes
 * it. Optional backends are imported only when named.
 */
export async function openFoldStoreAt(target: string, options: AuditTargetOptions = {}): Promise<{ kind: string; store: FoldStore }> {
  const namespace = options.namespace ?? 'pi-fold';
  if (/^rediss?:\/\//.test(target)) {
    const { default: KeyvRedis } = await import('@keyv/redis');
    const keyv = new Keyv({ store: new KeyvRedis(target), namespace, throwOnErrors: true, useKeyPrefix: false });
    return { kind: 'redis', store: new KeyvFoldStore({ keyv, ownsConnection: true }) };
  }
  if (/^postgres(ql)?:\/\//.test(target)) {
    const { default: KeyvPostgres } = await import('@keyv/postgres');
    const keyv = new Keyv({ store: new KeyvPostgres({ uri: target, iterationLimit: 500, ...(options.table === undefined ? {} : { table: options.table }) }), namespace, throwOnErrors: true });
    return { kind: 'postgres', store: new KeyvFoldStore({ keyv, ownsConnection: true }) };
  }
  const info = await stat(target);
  if (info.isDirectory()) {
    const entries = await readdir(target);
    if (!['blobs', 'sessions', 'evidence'].some((name) => entries.includes(name))) throw new Error(`${target} holds no pi-fold store (no blobs/, sessions/ or evidence/)`);
    return { kind: 'fs', store: new FsFoldStore({ root: target }) };
  }
  if (info.isFile() && (await isSqliteFile(target))) {
    const { createSqliteKeyv } = await import('../../adapters/storage-sqlite/create-sqlite-store.ts');
    return { kind: 'sqlite', store: new KeyvFoldStore({ keyv: createSqliteKeyv({ path: target, namespace }), name: 'sqlite', ownsConnection: true }) };
  }
  throw new Error(`${target} is neither a store directory, a SQLite file, nor a redis:// or postgres:// URL`);
}
