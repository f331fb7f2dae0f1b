import { appendFile, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { RequestLogRow } from '../../ports/request-log.ts';
import { checkRequestLogRow } from '../storage-shared/request-log-rows.ts';
import { retryingOnShortage } from './descriptor-shortage.ts';
import { isAbsent, storeFailure } from './fs-errors.ts';
import type { FsStoreLayout } from './fs-store-layout.ts';

/** File name of a session's request log inside its session directory. */
export const REQUEST_LOG_FILE = 'requests.jsonl';

export function requestLogPath(layout: FsStoreLayout, sessionId: string): string {
  return join(layout.sessionDirectory(sessionId), REQUEST_LOG_FILE);
}

/**
 * Append rows as JSON lines with one `O_APPEND` write. Not fsync'd: the log is an observation
 * record, so a crash may cost its newest rows but never a fold or the state (those are fsync'd).
 */
export async function appendFsRequestLog(
  layout: FsStoreLayout,
  storeName: string,
  sessionId: string,
  rows: readonly RequestLogRow[],
): Promise<void> {
  if (rows.length === 0) return;
  const path = requestLogPath(layout, sessionId);
  try {
    const lines = rows.map((row) => `${JSON.stringify(row)}\n`).join('');
    await layout.writeInside(dirname(path), () => retryingOnShortage(() => appendFile(path, lines, { mode: 0o644 })));
  } catch (error) {
    throw storeFailure('STORE.WRITE_FAILED', storeName, 'append to the request log', layout.keyOf(path), error);
  }
}

/**
 * Read a session's rows. A last line cut short by a crash is dropped (it was never complete);
 * any other line that is not a row is a named error, not silently skipped.
 */
export async function readFsRequestLog(
  layout: FsStoreLayout,
  storeName: string,
  sessionId: string,
): Promise<readonly RequestLogRow[]> {
  const path = requestLogPath(layout, sessionId);
  let text: string;
  try {
    text = await retryingOnShortage(() => readFile(path, 'utf8'));
  } catch (error) {
    if (isAbsent(error)) return [];
    throw storeFailure('STORE.READ_FAILED', storeName, 'read the request log', layout.keyOf(path), error);
  }
  // The piece after the last newline is empty, or a line a crash cut short: either way not a row.
  const complete = text.split('\n').slice(0, -1);
  return complete.map((line, index) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      parsed = undefined;
    }
    return checkRequestLogRow(parsed, storeName, `${layout.keyOf(path)} line ${index + 1}`);
  });
}
