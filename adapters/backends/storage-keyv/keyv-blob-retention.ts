import { assertSha256 } from '../../../core/store/store-keys.ts';
import type { StoredBlobInfo } from '../../../ports/fold-store.port.ts';
import type { KeyvConnection } from './keyv-connection.ts';
import { blobKey, decodeStoredBytes, type StoredBlob, storedKind } from './keyv-records.ts';
import { sessionKeyParts } from './keyv-unreadable-rows.ts';

/**
 * Retention on a Keyv-backed store. A blob's `touchedAt` lives in its value; a re-put of the
 * same bytes rewrites the value with a fresh time, at most once per `TOUCH_REFRESH_MS`, so
 * deduplicated puts stay cheap. Blobs written before retention existed have no time and count
 * as old.
 */

/** A re-put refreshes `touchedAt` only when it is older than this (ms). gc's grace must exceed it. */
export const TOUCH_REFRESH_MS = 60_000;

/** Whether a stored blob's time is stale enough that a re-put should refresh it. */
export function needsTouch(value: unknown, now: number): boolean {
  const touchedAt = (value as Partial<StoredBlob> | null)?.touchedAt;
  return typeof touchedAt !== 'number' || now - touchedAt >= TOUCH_REFRESH_MS;
}

/**
 * Sessions with a fold record, a state or a request log in the namespace, named by their keys
 * (as the fs store names them by directory): a session whose state row is torn is still one.
 */
export async function listKeyvSessions(connection: KeyvConnection): Promise<readonly string[]> {
  const sessions = new Set<string>();
  for await (const [key] of connection.entries('list sessions of')) {
    const parts = sessionKeyParts(key);
    if (parts !== undefined && /^(state|fold\/|requests)/.test(parts.rest)) sessions.add(parts.sessionId);
  }
  return [...sessions];
}

/** Every blob value of the namespace with its decoded size and time. */
export async function* listKeyvBlobs(connection: KeyvConnection): AsyncIterable<StoredBlobInfo> {
  for await (const [, value] of connection.entries('list blobs of')) {
    if (storedKind(value) !== 'blob') continue;
    const info = infoOf(value);
    if (info !== undefined) yield info;
  }
}

export async function keyvBlobInfo(
  connection: KeyvConnection,
  storeName: string,
  sha256: string,
): Promise<StoredBlobInfo | undefined> {
  assertSha256(sha256, storeName);
  return infoOf(await connection.read(blobKey(sha256), 'measure blob'));
}

/**
 * Delete a blob unless its value says it was put at or after `touchedBefore`. The value is
 * re-read right before the delete; Keyv offers no compare-and-delete, so a writer refreshing
 * the blob in the instant between that read and the delete is the one window left (see
 * docs/storage.md, "Retention and gc").
 */
export async function deleteKeyvBlob(
  connection: KeyvConnection,
  storeName: string,
  sha256: string,
  touchedBefore: number,
): Promise<'deleted' | 'kept' | 'absent'> {
  assertSha256(sha256, storeName);
  const key = blobKey(sha256);
  const info = infoOf(await connection.read(key, 'check blob before deleting'));
  if (info === undefined) return 'absent';
  if (info.touchedAt >= touchedBefore) return 'kept';
  await connection.remove(key, 'delete blob');
  return 'deleted';
}

function infoOf(value: unknown): StoredBlobInfo | undefined {
  const decoded = decodeStoredBytes(value);
  if (decoded === undefined) return undefined;
  const touchedAt = (value as Partial<StoredBlob>).touchedAt;
  return {
    sha256: decoded.sha256,
    bytes: decoded.bytes.length,
    touchedAt: typeof touchedAt === 'number' ? touchedAt : 0,
  };
}
