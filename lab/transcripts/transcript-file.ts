import { constants as bufferConstants } from 'node:buffer';
import { access, constants, stat } from 'node:fs/promises';
import { FoldError } from '../../core/fold-error.ts';

/**
 * The longest line a transcript may have: V8's longest string, in UTF-16 code units. A UTF-8
 * line of at most this many bytes always decodes within it; a longer one cannot become a
 * string at all, so it is refused by name (`TRANSCRIPT.LINE_TOO_LONG`) instead of crashing.
 */
export const MAX_TRANSCRIPT_LINE_BYTES: number = bufferConstants.MAX_STRING_LENGTH;

/** How a transcript file is read; the limit is a parameter so a test can meet it without 512 MB on disk. */
export interface TranscriptReadOptions {
  /** Longest line, in bytes. @default MAX_TRANSCRIPT_LINE_BYTES */
  readonly maxLineBytes?: number;
}

/**
 * Check that `path` is a file this process can read before any reader opens it, so each way
 * it can fail gets a code that says what is wrong: no such file (`TRANSCRIPT.NOT_FOUND`), a
 * directory (`TRANSCRIPT.IS_DIRECTORY`), no permission or not a regular file
 * (`TRANSCRIPT.UNREADABLE`), an empty file (`TRANSCRIPT.NOT_A_SESSION`).
 */
export async function assertReadableTranscript(path: string): Promise<void> {
  let size: number;
  try {
    const info = await stat(path);
    if (info.isDirectory())
      throw new FoldError(
        'TRANSCRIPT.IS_DIRECTORY',
        `${path} is a directory; give one session file (a .jsonl or .traj.json inside it)`,
        { details: { path } },
      );
    if (!info.isFile())
      throw new FoldError('TRANSCRIPT.UNREADABLE', `${path} is not a regular file (a device, socket or pipe)`, {
        details: { path },
      });
    size = info.size;
    await access(path, constants.R_OK);
  } catch (error) {
    if (FoldError.isInstance(error)) throw error;
    throw fileFailure(path, error);
  }
  if (size === 0)
    throw new FoldError('TRANSCRIPT.NOT_A_SESSION', `${path} is empty: no session to replay`, { details: { path } });
}

/** A system error met while opening or reading a transcript, as the code that says what is wrong. */
export function fileFailure(path: string, error: unknown): FoldError {
  const systemCode = (error as NodeJS.ErrnoException).code;
  const reason = (error as Error).message;
  if (systemCode === 'ENOENT' || systemCode === 'ENOTDIR')
    return new FoldError('TRANSCRIPT.NOT_FOUND', `no transcript at ${path} (${systemCode})`, {
      cause: error,
      details: { path },
    });
  if (systemCode === 'EISDIR')
    return new FoldError('TRANSCRIPT.IS_DIRECTORY', `${path} is a directory; give one session file`, {
      cause: error,
      details: { path },
    });
  return new FoldError('TRANSCRIPT.UNREADABLE', `cannot read transcript ${path}: ${reason}`, {
    cause: error,
    details: { path, ...(systemCode === undefined ? {} : { systemCode }) },
  });
}
