import { appendFile, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { RequestLogRow } from '../../../ports/request-log.ts';
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
 * Read a session's rows. A last line cut short by a crash is dropped (it was never complete),
 * and so is a line torn in the middle of the log (a write cut short, then the next append
 * after it), keeping any whole row the next append left at its end: the log is an
 * observation record, so damage costs the rows it tore, never the rest. `verify` names each
 * torn line and `repair` rewrites the log without them. A whole line that is not a row (a
 * foreign value, a future schema) is still a named error.
 */
export async function readFsRequestLog(
  layout: FsStoreLayout,
  storeName: string,
  sessionId: string,
): Promise<readonly RequestLogRow[]> {
  const text = await readFsRequestLogText(layout, storeName, sessionId);
  return text === undefined
    ? []
    : parseRequestLogText(text, storeName, layout.keyOf(requestLogPath(layout, sessionId))).rows;
}

/** The log's text, or `undefined` when the session has none. */
export async function readFsRequestLogText(
  layout: FsStoreLayout,
  storeName: string,
  sessionId: string,
): Promise<string | undefined> {
  const path = requestLogPath(layout, sessionId);
  try {
    return await retryingOnShortage(() => readFile(path, 'utf8'));
  } catch (error) {
    if (isAbsent(error)) return undefined;
    throw storeFailure('STORE.READ_FAILED', storeName, 'read the request log', layout.keyOf(path), error);
  }
}

/** A line of the log that is not JSON, and whether a whole row was found after the tear. */
export interface TornRequestLogLine {
  /** 1-based line number. */
  readonly line: number;
  readonly salvaged: boolean;
}

/** The rows of a log's text, and the lines torn in it. */
export function parseRequestLogText(
  text: string,
  storeName: string,
  key: string,
): { readonly rows: RequestLogRow[]; readonly torn: TornRequestLogLine[] } {
  const rows: RequestLogRow[] = [];
  const torn: TornRequestLogLine[] = [];
  // The piece after the last newline is empty, or a line a crash cut short: either way not a row.
  const complete = text.split('\n').slice(0, -1);
  complete.forEach((line, index) => {
    const where = `${key} line ${index + 1}`;
    const parsed = parseJson(line);
    if (parsed !== undefined) {
      rows.push(checkRequestLogRow(parsed.value, storeName, where));
      return;
    }
    const salvaged = rowAfterTear(line, storeName, where);
    if (salvaged !== undefined) rows.push(salvaged);
    torn.push({ line: index + 1, salvaged: salvaged !== undefined });
  });
  return { rows, torn };
}

/** A torn line is the start of a row a write cut short, then the whole row appended after it. */
function rowAfterTear(line: string, storeName: string, where: string): RequestLogRow | undefined {
  for (let start = line.indexOf('{', 1); start > 0; start = line.indexOf('{', start + 1)) {
    const parsed = parseJson(line.slice(start));
    if (parsed === undefined) continue;
    try {
      return checkRequestLogRow(parsed.value, storeName, where);
    } catch {
      // A fragment that happens to parse (an inner object) is not the appended row.
    }
  }
  return undefined;
}

function parseJson(text: string): { readonly value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return undefined;
  }
}
