import { utimes } from 'node:fs/promises';
import { FsFoldStore } from '../../../adapters/backends/storage-fs/fs-fold-store.ts';
import { KeyvFoldStore } from '../../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { blobKey } from '../../../adapters/backends/storage-keyv/keyv-records.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';

/**
 * Make a blob look as if it was last written `ageMs` ago, the way it would after sitting in a
 * store for a while: the file's mtime for fs, the value's `touchedAt` for Keyv stores.
 */
export async function backdateBlob(store: FoldStore, sha256: string, ageMs: number): Promise<void> {
  const then = Date.now() - ageMs;
  if (store instanceof FsFoldStore) {
    await utimes(store.layout.blobPath(sha256), new Date(then), new Date(then));
    return;
  }
  if (store instanceof KeyvFoldStore) {
    const keyv = store.connection.keyv;
    const value = (await keyv.get(blobKey(sha256))) as Record<string, unknown>;
    await keyv.set(blobKey(sha256), { ...value, touchedAt: then });
    return;
  }
  throw new Error(`cannot backdate blobs of a ${store.name} store`);
}
