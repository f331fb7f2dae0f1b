import { FoldError } from '../../../core/fold-error.ts';
import type { RequestLogRow } from '../../../ports/request-log.ts';

/**
 * Check a request-log row read back from a backend. The log is an observation record, but a
 * row that is not one (a foreign value, a future schema) is named rather than shown as data.
 */
export function checkRequestLogRow(value: unknown, storeName: string, where: string): RequestLogRow {
  const row = value as Partial<RequestLogRow> | null;
  if (
    typeof row !== 'object' ||
    row === null ||
    (row.kind !== 'request' && row.kind !== 'commit') ||
    !Number.isInteger(row.request)
  ) {
    throw new FoldError('STATE.CORRUPT', `${storeName} store: ${where} is not a request-log row`, {
      details: { where },
    });
  }
  if (row.schemaVersion !== 1) {
    throw new FoldError(
      'STORE.SCHEMA_VERSION',
      `${storeName} store: ${where} has request-log schema ${String(row.schemaVersion)}; this pi-fold reads schema 1`,
      { details: { where, schemaVersion: row.schemaVersion } },
    );
  }
  return row as RequestLogRow;
}
