import { assertSafeId } from '../../../core/store/store-keys.ts';
import type { RequestLogRow } from '../../../ports/request-log.ts';
import { checkRequestLogRow } from '../storage-shared/request-log-rows.ts';
import type { KeyvConnection } from './keyv-connection.ts';
import { requestLogChunkKey, requestLogHeadKey, storedKind } from './keyv-records.ts';
import { isUnreadableRow } from './keyv-unreadable-rows.ts';

/** One appended batch of rows: written once under its own key, never rewritten. */
export interface StoredRequestLogChunk {
  readonly kind: 'request-log';
  readonly sessionId: string;
  readonly chunk: number;
  readonly rows: readonly RequestLogRow[];
}

/** How many chunks a session's log has; written after the chunk it counts. */
export interface StoredRequestLogHead {
  readonly kind: 'request-log-head';
  readonly sessionId: string;
  readonly chunks: number;
}

/**
 * A session's request log on Keyv: each append is a new chunk key, then the head that counts
 * chunks. A crash between the two leaves an uncounted chunk, never a torn one; one writer
 * per session is assumed (the head is read, then replaced).
 */
export async function appendKeyvRequestLog(
  connection: KeyvConnection,
  sessionId: string,
  rows: readonly RequestLogRow[],
): Promise<void> {
  assertSafeId(sessionId, 'session id', connection.name);
  if (rows.length === 0) return;
  const chunks = await chunkCount(connection, sessionId);
  const chunk: StoredRequestLogChunk = { kind: 'request-log', sessionId, chunk: chunks, rows };
  await connection.write(requestLogChunkKey(sessionId, chunks), chunk, 'append to the request log');
  const head: StoredRequestLogHead = { kind: 'request-log-head', sessionId, chunks: chunks + 1 };
  await connection.write(requestLogHeadKey(sessionId), head, 'append to the request log');
}

export async function readKeyvRequestLog(
  connection: KeyvConnection,
  sessionId: string,
): Promise<readonly RequestLogRow[]> {
  assertSafeId(sessionId, 'session id', connection.name);
  const rows: RequestLogRow[] = [];
  const chunks = await chunkCount(connection, sessionId);
  for (let index = 0; index < chunks; index += 1) {
    const key = requestLogChunkKey(sessionId, index);
    const value = (await connection.read(key, 'read the request log')) as Partial<StoredRequestLogChunk> | undefined;
    // A torn or evicted chunk costs its own rows, not the log: `verify` names a torn one and
    // `repair` sets it aside.
    if (value === undefined || isUnreadableRow(value)) continue;
    if (storedKind(value) !== 'request-log' || !Array.isArray(value?.rows)) {
      checkRequestLogRow(undefined, connection.name, key);
      continue;
    }
    value.rows.forEach((row, position) => {
      rows.push(checkRequestLogRow(row, connection.name, `${key} row ${position + 1}`));
    });
  }
  return rows;
}

/**
 * How many chunks the log has. A head that cannot be read is not "no chunks": the next append
 * would then write over the first one. The chunks present are counted instead.
 */
export async function chunkCount(connection: KeyvConnection, sessionId: string): Promise<number> {
  const head = (await connection.read(requestLogHeadKey(sessionId), 'read the request log')) as
    | Partial<StoredRequestLogHead>
    | undefined;
  if (head === undefined) return 0;
  if (!isUnreadableRow(head) && Number.isInteger(head.chunks)) return head.chunks!;
  let chunks = 0;
  while (await connection.has(requestLogChunkKey(sessionId, chunks), 'read the request log')) chunks += 1;
  return chunks;
}
