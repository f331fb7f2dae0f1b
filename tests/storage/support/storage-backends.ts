import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import KeyvPostgres from '@keyv/postgres';
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import type { FsFoldStore } from '../../../adapters/backends/storage-fs/fs-fold-store.ts';
import type { KeyvFoldStore } from '../../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { blobKey, evidenceKey, foldKey, stateKey } from '../../../adapters/backends/storage-keyv/keyv-records.ts';
import type { EvidenceStore } from '../../../ports/evidence-store.port.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';
import type { StoreDamageHooks } from '../../../testing/store-damage-conformance.ts';

/** A scratch directory for one test; removed by `removeScratch`. */
export async function scratchDirectory(label: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `pi-fold-${label}-`));
}

export async function removeScratch(path: string): Promise<void> {
  await rm(path, { recursive: true, force: true });
}

/** Flip one bit of one byte of a file in place (files are 0444, so lift that first). */
export async function flipByteInFile(path: string, offset = 0): Promise<void> {
  const bytes = await readFile(path);
  const index = Math.min(offset, bytes.length - 1);
  bytes[index] = (bytes[index] ?? 0) ^ 0x01;
  await chmod(path, 0o644);
  await writeFile(path, bytes);
  await chmod(path, 0o444);
}

/** Corrupt a blob of a filesystem store by flipping its first byte on disk. */
export async function corruptFsBlob(store: FoldStore, sha256: string): Promise<void> {
  await flipByteInFile((store as FsFoldStore).layout.blobPath(sha256));
}

/** Swap one base64 character of a stored value, through the Keyv itself, as a disk fault would. */
export async function corruptKeyvValue(keyv: Keyv, key: string): Promise<void> {
  const value = (await keyv.get(key)) as { base64: string };
  const first = value.base64[0] === 'A' ? 'B' : 'A';
  await keyv.set(key, { ...value, base64: first + value.base64.slice(1) });
}

export const corruptKeyvBlob = async (store: FoldStore, sha256: string) =>
  corruptKeyvValue((store as KeyvFoldStore).connection.keyv, blobKey(sha256));
export const corruptKeyvArtifact = async (keyv: Keyv, _store: EvidenceStore, sessionId: string, sha256: string) =>
  corruptKeyvValue(keyv, evidenceKey(sessionId, sha256));

/** A namespace no other run shares, so tests on one server never see each other's keys. */
export function runNamespace(): string {
  return `pi-fold-test-${randomBytes(6).toString('hex')}`;
}

/** A Keyv on the Redis server, as a user would build it to share a store. */
export function redisKeyv(url: string, namespace: string): Keyv {
  return new Keyv({
    store: new KeyvRedis(url, { throwOnErrors: true }),
    namespace,
    throwOnErrors: true,
    useKeyPrefix: false,
  });
}

/** A Keyv on PostgreSQL; keys reach ~420 chars (200-char ids), so the key column is widened. */
export function postgresKeyv(url: string, namespace: string): Keyv {
  return new Keyv({
    store: new KeyvPostgres({ uri: url, keySize: 512, table: 'pi_fold_test' }),
    namespace,
    throwOnErrors: true,
  });
}

/** The key a Keyv's adapter stores `key` under (the Keyv prefixes its namespace unless the adapter does). */
function adapterKey(keyv: Keyv, key: string): string {
  return keyv.useKeyPrefix && keyv.namespace !== undefined ? `${keyv.namespace}:${key}` : key;
}

/** Cut a stored value's text to its first half through the adapter itself, as a torn write leaves it. */
export async function tearKeyvValue(keyv: Keyv, key: string): Promise<void> {
  const adapter = keyv.store as {
    get(key: string): Promise<unknown>;
    set(key: string, value: string): Promise<unknown>;
  };
  const raw = await adapter.get(adapterKey(keyv, key));
  if (typeof raw !== 'string') throw new Error(`no stored text under ${key}`);
  await adapter.set(adapterKey(keyv, key), raw.slice(0, Math.floor(raw.length / 2)));
}

/** Store the text held under `from` under `to` as well, as a stray copy would. */
export async function copyKeyvValue(keyv: Keyv, from: string, to: string): Promise<void> {
  const adapter = keyv.store as {
    get(key: string): Promise<unknown>;
    set(key: string, value: string): Promise<unknown>;
  };
  const raw = await adapter.get(adapterKey(keyv, from));
  if (typeof raw !== 'string') throw new Error(`no stored text under ${from}`);
  await adapter.set(adapterKey(keyv, to), raw);
}

/** Damage hooks of the FoldStore conformance suite for a Keyv-backed store. */
export const keyvDamageHooks: StoreDamageHooks = {
  tearStored: async (store, target) => {
    const { keyv } = (store as KeyvFoldStore).connection;
    const key =
      target.kind === 'blob'
        ? blobKey(target.sha256)
        : target.kind === 'state'
          ? stateKey(target.sessionId)
          : foldKey(target.sessionId, target.foldId);
    await tearKeyvValue(keyv, key);
  },
  copyRecordOver: async (store, sessionId, from, over) =>
    copyKeyvValue((store as KeyvFoldStore).connection.keyv, foldKey(sessionId, from), foldKey(sessionId, over)),
};

/** Damage hooks of the FoldStore conformance suite for the fs store. */
export const fsDamageHooks: StoreDamageHooks = {
  tearStored: async (store, target) => {
    const { layout } = store as FsFoldStore;
    const path =
      target.kind === 'blob'
        ? layout.blobPath(target.sha256)
        : target.kind === 'state'
          ? layout.statePath(target.sessionId)
          : layout.foldPath(target.sessionId, target.foldId);
    await chmod(path, 0o644);
    await truncate(path, Math.floor((await readFile(path)).length / 2));
  },
  copyRecordOver: async (store, sessionId, from, over) => {
    const { layout } = store as FsFoldStore;
    const target = layout.foldPath(sessionId, over);
    await chmod(target, 0o644);
    await writeFile(target, await readFile(layout.foldPath(sessionId, from)));
  },
};
