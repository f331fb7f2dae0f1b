import { copyFile, mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { storeFailure } from './fs-errors.ts';
import type { FsStoreLayout } from './fs-store-layout.ts';

/** Directory under a store root where `repair` sets damaged files aside. Nothing reads it. */
export const QUARANTINE_DIRECTORY = 'quarantine';

/**
 * Where a file set aside now goes: `quarantine/<its root-relative path>@<time>`, so a person
 * sees what it was and when, and a second repair never overwrites the first one's copy.
 */
function quarantinePathOf(layout: FsStoreLayout, path: string): string {
  return join(layout.root, QUARANTINE_DIRECTORY, `${layout.keyOf(path)}@${Date.now()}`);
}

/**
 * Move a damaged file aside (one rename: its bytes are kept as they are, never rewritten).
 * Returns where it went, root-relative.
 */
export async function quarantineFsFile(layout: FsStoreLayout, storeName: string, path: string): Promise<string> {
  const aside = quarantinePathOf(layout, path);
  try {
    await mkdir(dirname(aside), { recursive: true, mode: 0o755 });
    await rename(path, aside);
  } catch (error) {
    throw storeFailure('STORE.WRITE_FAILED', storeName, 'set aside', layout.keyOf(path), error);
  }
  return layout.keyOf(aside);
}

/** Keep a copy of a file about to be rewritten in place (a request log mended); returns where, root-relative. */
export async function quarantineFsCopy(layout: FsStoreLayout, storeName: string, path: string): Promise<string> {
  const aside = quarantinePathOf(layout, path);
  try {
    await mkdir(dirname(aside), { recursive: true, mode: 0o755 });
    await copyFile(path, aside);
  } catch (error) {
    throw storeFailure('STORE.WRITE_FAILED', storeName, 'copy aside', layout.keyOf(path), error);
  }
  return layout.keyOf(aside);
}
