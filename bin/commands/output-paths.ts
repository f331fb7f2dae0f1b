import { statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { FoldError } from '../../core/fold-error.ts';

/**
 * Where a command will write is checked before it does any work: a page or report that cannot
 * be written would otherwise fail only at the end, after a long run, with the file system's
 * bare code. Each check only looks (stat); nothing is created here.
 */

type Kind = 'file' | 'directory' | 'other' | 'missing' | 'blocked';

function kindOf(path: string): Kind {
  try {
    const info = statSync(path);
    return info.isDirectory() ? 'directory' : info.isFile() ? 'file' : 'other';
  } catch (error) {
    // ENOTDIR: a part of the path is a file, so nothing can be created below it.
    return (error as NodeJS.ErrnoException).code === 'ENOTDIR' ? 'blocked' : 'missing';
  }
}

function refuse(option: string, path: string, why: string): FoldError {
  return new FoldError('OUTPUT.INVALID', `${option} ${path} ${why}; nothing was written`, { details: { path } });
}

/** A file a command writes (`view --out`): not a directory, and its folder must exist. */
export function assertWritableFile(option: string, path: string): string {
  const absolute = resolve(path);
  const kind = kindOf(absolute);
  if (kind === 'directory') throw refuse(option, path, 'is a directory: give a file name for the page, e.g. page.html');
  if (kind === 'other') throw refuse(option, path, 'is not a regular file');
  const folder = dirname(absolute);
  const folderKind = kindOf(folder);
  if (folderKind === 'missing') throw refuse(option, path, `is in a folder that does not exist (${folder})`);
  if (folderKind !== 'directory') throw refuse(option, path, `is below ${folder}, which is not a folder`);
  return absolute;
}

/**
 * A folder a command fills (`replay --out`): a folder if it exists, else creatable below its
 * nearest existing parent.
 */
export function assertWritableDirectory(option: string, path: string): string {
  const absolute = resolve(path);
  const kind = kindOf(absolute);
  if (kind === 'directory') return absolute;
  if (kind === 'file' || kind === 'other')
    throw refuse(option, path, 'exists and is not a folder: give a folder for the reports (it is created if missing)');
  let parent = dirname(absolute);
  while (kindOf(parent) === 'missing' && dirname(parent) !== parent) parent = dirname(parent);
  if (kindOf(parent) !== 'directory') throw refuse(option, path, `cannot be created: a part of it is a file`);
  return absolute;
}
