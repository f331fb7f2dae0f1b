import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import KeyvPostgres from '@keyv/postgres';
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import type { FsFoldStore } from '../../../adapters/storage-fs/fs-fold-store.ts';
import type { KeyvFoldStore } from '../../../adapters/storage-keyv/keyv-fold-store.ts';
import { blobKey, evidenceKey } from '../../../adapters/storage-keyv/keyv-records.ts';
import type { EvidenceStore } from '../../../ports/evidence-store.port.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';

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
