import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Every path under a directory with what it is and a digest of its bytes (or link target),
 * skipping `skip` (the store root, which is allowed to change). Two snapshots that differ
 * mean something was written, created or removed there.
 */
export async function snapshotTree(directory: string, skip: readonly string[] = []): Promise<Map<string, string>> {
  const snapshot = new Map<string, string>();
  const walk = async (path: string): Promise<void> => {
    if (skip.includes(path)) return;
    const info = await lstat(path);
    if (info.isSymbolicLink()) snapshot.set(path, `link ${await readlink(path)}`);
    else if (info.isDirectory()) {
      snapshot.set(path, `dir ${(info.mode & 0o7777).toString(8)}`);
      for (const name of (await readdir(path)).sort()) await walk(join(path, name));
    } else
      snapshot.set(
        path,
        `file ${(info.mode & 0o7777).toString(8)} ${info.mtimeMs} ${createHash('sha256')
          .update(await readFile(path))
          .digest('hex')}`,
      );
  };
  await walk(directory);
  return snapshot;
}

/** Paths added, removed or changed between two snapshots. */
export function treeChanges(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const changes: string[] = [];
  for (const [path, value] of after)
    if (before.get(path) !== value) changes.push(`${before.has(path) ? 'changed' : 'created'} ${path}`);
  for (const path of before.keys()) if (!after.has(path)) changes.push(`removed ${path}`);
  return changes;
}
