import { randomBytes } from 'node:crypto';
import { closeSync, constants, fsync, linkSync, openSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { forEachBounded } from '../../../core/util/bounded-parallel.ts';
import { retryingOnShortage } from './descriptor-shortage.ts';

/**
 * Crash-safe file writes. A reader only ever sees a target path after its bytes are complete
 * and flushed: the bytes go to a temp file in the same directory, are fsynced, then appear
 * under the target name in one atomic step, and the directory entry is fsynced too. A crash at
 * any point leaves either nothing or the whole file (plus, at worst, a stray temp file).
 *
 * Only the fsyncs wait on the thread pool. Every other call (open, write, link, rename,
 * unlink, close) is made synchronously: on a local disk each is a few microseconds of page
 * cache work, while its promise form costs a thread-pool round trip that settles only when
 * the host's event loop next turns. A Pi session's loop turns only a few times per request, so
 * a blob written through six awaited calls would wait on six turns, and a commit that writes a
 * few dozen would fall behind by whole requests (`npm run bench:pi` measures it, docs/storage.md).
 * The disk's real wait, the flush, still happens off the main thread.
 */

/**
 * Files (or directories) synced at once by a barrier. Each holds a descriptor until its fsync
 * returns, so a barrier over thousands of new files must not open them all together: the
 * process's limit on open files (often 256 or 1,024) would be reached and every write after
 * it refused. The thread pool runs only a few fsyncs at a time anyway, so a few dozen queued
 * keep it as busy as thousands would.
 */
export const SYNCS_IN_FLIGHT = 32;

/** Prefix of temp files; readers and listings skip names that start with it. */
export const TEMP_PREFIX = '.tmp-';

/** Whether a directory entry is an in-flight (or abandoned) temp file. */
export function isTempName(name: string): boolean {
  return name.startsWith(TEMP_PREFIX);
}

/**
 * Replace `target` with `bytes` atomically (temp → fsync → rename → fsync directory). With
 * `before`, the temp file is written and synced while `before` runs (the barrier for what
 * the new file names), and the rename waits for both: the file appears only after its
 * barrier, without paying for the two one after the other.
 */
export async function replaceFileAtomically(
  target: string,
  bytes: Uint8Array,
  mode: number,
  before?: () => Promise<void>,
): Promise<void> {
  const [written, barrier] = await Promise.allSettled([writeTempFile(target, bytes, mode), before?.()]);
  if (written.status === 'rejected' || barrier.status === 'rejected') {
    if (written.status === 'fulfilled') removeQuietly(written.value);
    throw written.status === 'rejected' ? written.reason : (barrier as PromiseRejectedResult).reason;
  }
  const temp = written.value;
  try {
    renameSync(temp, target);
  } catch (error) {
    removeQuietly(temp);
    throw error;
  }
  await fsyncDirectory(dirname(target));
}

/**
 * Create `target` with `bytes` only if nothing is there yet, atomically: the temp file is
 * hard-linked to the target name, which fails with EEXIST instead of replacing. Returns
 * whether this call created it. With `deferred`, neither the file's bytes nor its directory
 * entry are synced here: both are left to `deferred.flush()`, the barrier before anything
 * that names the file is written.
 */
export async function createFileExclusively(
  target: string,
  bytes: Uint8Array,
  mode: number,
  deferred?: PendingSyncs,
): Promise<'created' | 'exists'> {
  const temp = await writeTempFile(target, bytes, mode, deferred === undefined);
  try {
    linkSync(temp, target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // Someone else's copy is relied on now: it is synced at the barrier too.
    deferred?.add(target);
    return 'exists';
  } finally {
    removeQuietly(temp);
  }
  if (deferred === undefined) await fsyncDirectory(dirname(target));
  else deferred.add(target);
  return 'created';
}

/**
 * Files whose bytes and directory entries are not yet synced. A commit creates many files (a
 * blob per entry, a record per fold) across many directories; an fsync per file as it lands
 * costs one serial disk flush each. Collected here, they are made durable at the barrier
 * before anything that names them is written (`flush`): one parallel pass over the files,
 * then one over their directories (a file's entry is synced only after its bytes), each with
 * at most `SYNCS_IN_FLIGHT` descriptors open whatever the number of files.
 */
export class PendingSyncs {
  private readonly files = new Set<string>();
  private readonly directories = new Set<string>();
  /**
   * The flush under way: a second barrier waits for it, so no caller returns before the bytes it
   * relies on are durable.
   */
  private flushing: Promise<void> = Promise.resolve();

  /** Sync `file` (and its directory entry) at the next barrier. */
  add(file: string): void {
    this.files.add(file);
    this.directories.add(dirname(file));
  }

  /** Whether nothing is waiting to be synced. */
  get empty(): boolean {
    return this.files.size === 0 && this.directories.size === 0;
  }

  /** Make every file and entry added so far durable. */
  flush(): Promise<void> {
    const run = this.flushing.catch(() => undefined).then(() => this.syncPending());
    this.flushing = run;
    return run;
  }

  private async syncPending(): Promise<void> {
    if (this.empty) return;
    const files = [...this.files];
    const directories = [...this.directories];
    this.files.clear();
    this.directories.clear();
    try {
      await forEachBounded(files, SYNCS_IN_FLIGHT, fsyncFile);
      await forEachBounded(directories, SYNCS_IN_FLIGHT, fsyncDirectory);
    } catch (error) {
      // Not known to be durable: keep them for the next barrier.
      for (const file of files) this.files.add(file);
      for (const directory of directories) this.directories.add(directory);
      throw error;
    }
  }
}

async function writeTempFile(target: string, bytes: Uint8Array, mode: number, sync = true): Promise<string> {
  const temp = join(
    dirname(target),
    `${TEMP_PREFIX}${basename(target)}-${process.pid}-${randomBytes(6).toString('hex')}`,
  );
  // O_EXCL: a temp name is never shared, even by a concurrent writer with the same pid reuse.
  const descriptor = await retryingOnShortage(() =>
    openSync(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode),
  );
  try {
    for (let offset = 0; offset < bytes.length; ) offset += writeSync(descriptor, bytes, offset, bytes.length - offset);
    if (sync) await syncDescriptor(descriptor);
  } catch (error) {
    closeQuietly(descriptor);
    removeQuietly(temp);
    throw error;
  }
  closeSync(descriptor);
  return temp;
}

async function fsyncFile(path: string): Promise<void> {
  // Stored files are read-only (0444); fsync flushes a file's data through any descriptor.
  let descriptor: number;
  try {
    descriptor = await retryingOnShortage(() => openSync(path, constants.O_RDONLY));
  } catch (error) {
    // Deleted since it was written (gc removed an unreferenced blob): nothing left to sync,
    // as if it had been synced at once and deleted after.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await syncThenClose(descriptor);
}

async function fsyncDirectory(path: string): Promise<void> {
  await syncThenClose(await retryingOnShortage(() => openSync(path, constants.O_RDONLY | constants.O_DIRECTORY)));
}

async function syncThenClose(descriptor: number): Promise<void> {
  try {
    await syncDescriptor(descriptor);
  } finally {
    closeSync(descriptor);
  }
}

/** The one call that waits for the disk, so the one made on the thread pool. */
function syncDescriptor(descriptor: number): Promise<void> {
  return new Promise((resolve, reject) => fsync(descriptor, (error) => (error === null ? resolve() : reject(error))));
}

function closeQuietly(descriptor: number): void {
  try {
    closeSync(descriptor);
  } catch {
    // Already failing: the first error is the one reported.
  }
}

/** Remove a temp file that is no longer wanted; one already gone (or unremovable) is only a stray. */
function removeQuietly(path: string): void {
  try {
    unlinkSync(path);
  } catch {
    // A stray temp file is skipped by every reader and listing (isTempName).
  }
}
