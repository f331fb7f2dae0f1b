import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { link, open, rename, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/**
 * Crash-safe file writes. A reader only ever sees a target path after its bytes are complete
 * and flushed: the bytes go to a temp file in the same directory, are fsynced, then appear
 * under the target name in one atomic step, and the directory entry is fsynced too. A crash at
 * any point leaves either nothing or the whole file (plus, at worst, a stray temp file).
 */

/** Prefix of temp files; readers and listings skip names that start with it. */
export const TEMP_PREFIX = '.tmp-';

/** Whether a directory entry is an in-flight (or abandoned) temp file. */
export function isTempName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX);
}

/** Replace `target` with `bytes` atomically (temp → fsync → rename → fsync directory). */
export async function replaceFileAtomically(target: string, bytes: Uint8Array, mode: number): Promise<void> {
  const temp = await writeTempFile(target, bytes, mode);
  try {
    await rename(temp, target);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await fsyncDirectory(dirname(target));
}

/**
 * Create `target` with `bytes` only if nothing is there yet, atomically: the temp file is
 * hard-linked to the target name, which fails with EEXIST instead of replacing. Returns
 * whether this call created it.
 */
export async function createFileExclusively(target: string, bytes: Uint8Array, mode: number, deferred?: DirectorySyncs): Promise<'created' | 'exists'> {
  const temp = await writeTempFile(target, bytes, mode);
  try {
    await link(temp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return 'exists';
    throw error;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
  if (deferred === undefined) await fsyncDirectory(dirname(target));
  else deferred.add(dirname(target));
  return 'created';
}

/**
 * Directories whose new entries are not yet fsynced. A commit creates many files (a blob per
 * entry, a record per fold) across many directories; syncing each directory as its file lands
 * costs a serial fsync per file. Collected here, they are synced once each, in parallel, at the
 * barrier before anything that refers to them is written (`flush`).
 */
export class DirectorySyncs {
  private readonly pending = new Set<string>();

  add(directory: string): void {
    this.pending.add(directory);
  }

  /** Make every entry created so far durable. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const directories = [...this.pending];
    this.pending.clear();
    try {
      await Promise.all(directories.map(fsyncDirectory));
    } catch (error) {
      // Not known to be durable: keep them for the next barrier.
      for (const directory of directories) this.pending.add(directory);
      throw error;
    }
  }
}

async function writeTempFile(target: string, bytes: Uint8Array, mode: number): Promise<string> {
  const temp = join(dirname(target), `${TEMP_PREFIX}${basename(target)}-${process.pid}-${randomBytes(6).toString('hex')}`);
  // O_EXCL: a temp name is never shared, even by a concurrent writer with the same pid reuse.
  const handle = await open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  try {
    let offset = 0;
    while (offset < bytes.length) {
      const { bytesWritten } = await handle.write(bytes, offset, bytes.length - offset);
      offset += bytesWritten;
    }
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  await handle.close();
  return temp;
}

async function fsyncDirectory(path: string): Promise<void> {
  const handle = await open(path, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
