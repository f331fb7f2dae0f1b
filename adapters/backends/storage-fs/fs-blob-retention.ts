import { randomBytes } from 'node:crypto';
import { utimesSync } from 'node:fs';
import { link, readdir, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { assertSafeId } from '../../../core/store/store-keys.ts';
import type { StoredBlobInfo } from '../../../ports/fold-store.port.ts';
import { isTempName, TEMP_PREFIX } from './atomic-files.ts';
import { isAbsent, storeFailure } from './fs-errors.ts';
import type { FsStoreLayout } from './fs-store-layout.ts';

/**
 * Retention on a filesystem store: a blob's `touchedAt` is its file's mtime, refreshed when
 * the same bytes are put again; deletion first renames the file aside so that the age check
 * and the delete act on one inode no writer can refresh unseen.
 */

const SHA256_NAME = /^[0-9a-f]{64}$/;

/**
 * Refresh a blob's mtime because a writer just put its bytes again. Returns false when the
 * file vanished meanwhile (a gc took it), so the caller writes it afresh.
 */
export async function touchBlobFile(layout: FsStoreLayout, storeName: string, path: string): Promise<boolean> {
  const now = new Date();
  try {
    utimesSync(path, now, now);
    return true;
  } catch (error) {
    if (isAbsent(error)) return false;
    throw storeFailure('STORE.WRITE_FAILED', storeName, 'refresh blob', layout.keyOf(path), error);
  }
}

/** Sessions with a directory under `sessions/` (fold records or state). */
export async function listFsSessions(layout: FsStoreLayout, storeName: string): Promise<readonly string[]> {
  const names = await listOrEmpty(layout, storeName, layout.sessionsDirectory);
  // An unsafe name is refused rather than skipped: gc must never miss a session's references.
  for (const name of names) assertSafeId(name, 'session id', storeName);
  return names;
}

/** Every blob file with its size and mtime; temp files and strangers are not blobs. */
export async function* listFsBlobs(layout: FsStoreLayout, storeName: string): AsyncIterable<StoredBlobInfo> {
  for (const prefix of await listOrEmpty(layout, storeName, layout.blobsDirectory)) {
    for (const name of await listOrEmpty(layout, storeName, join(layout.blobsDirectory, prefix))) {
      if (isTempName(name) || !SHA256_NAME.test(name) || !name.startsWith(prefix)) continue;
      const info = await fsBlobInfo(layout, storeName, name);
      if (info !== undefined) yield info;
    }
  }
}

export async function fsBlobInfo(
  layout: FsStoreLayout,
  storeName: string,
  sha256: string,
): Promise<StoredBlobInfo | undefined> {
  const path = layout.blobPath(sha256);
  try {
    const info = await stat(path);
    return { sha256, bytes: info.size, touchedAt: info.mtimeMs };
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw storeFailure('STORE.READ_FAILED', storeName, 'measure blob', layout.keyOf(path), error);
  }
}

/**
 * Delete a blob unless it was written at or after `touchedBefore`. The file is renamed to a
 * temp name first (atomic): a writer's refresh either landed before the rename and shows in
 * the quarantined file's mtime (then it is put back), or comes after and finds no file, so
 * the writer writes the blob again.
 */
export async function deleteFsBlob(
  layout: FsStoreLayout,
  storeName: string,
  sha256: string,
  touchedBefore: number,
): Promise<'deleted' | 'kept' | 'absent'> {
  const path = layout.blobPath(sha256);
  const quarantine = join(
    layout.blobsDirectory,
    sha256.slice(0, 2),
    `${TEMP_PREFIX}gc-${sha256}-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  try {
    await rename(path, quarantine);
  } catch (error) {
    if (isAbsent(error)) return 'absent';
    throw storeFailure('STORE.WRITE_FAILED', storeName, 'set aside blob', layout.keyOf(path), error);
  }
  try {
    if ((await stat(quarantine)).mtimeMs < touchedBefore) {
      await unlink(quarantine);
      return 'deleted';
    }
    // Refreshed since the scan: put it back (a writer may already have written it anew).
    await link(quarantine, path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    await unlink(quarantine);
    return 'kept';
  } catch (error) {
    throw storeFailure('STORE.WRITE_FAILED', storeName, 'delete blob', layout.keyOf(path), error);
  }
}

async function listOrEmpty(layout: FsStoreLayout, storeName: string, directory: string): Promise<string[]> {
  try {
    return (await readdir(directory)).filter((name) => !isTempName(name)).sort();
  } catch (error) {
    if (isAbsent(error)) return [];
    throw storeFailure('STORE.READ_FAILED', storeName, 'list', layout.keyOf(directory), error);
  }
}
