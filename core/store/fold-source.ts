import type { FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { FoldError } from '../fold-error.ts';
import { sha256Hex } from '../util/hashing.ts';
import { verifiedBlobText } from './verified-reads.ts';

/** One covered entry's exact bytes, as the host had them. */
export interface SourceEntry {
  readonly entryId: string;
  readonly bytes: string;
}

/**
 * Read a fold's whole exact source at every depth, each entry verified against its own
 * SHA-256 and the whole against the fold's source SHA-256 (docs/behaviour.md I2). Nothing is returned unless
 * everything checks out.
 */
export async function readFoldSource(
  store: FoldStore,
  lookup: (foldId: string) => FoldRecord | undefined,
  foldId: string,
): Promise<SourceEntry[]> {
  const record = lookup(foldId);
  if (record === undefined) throw new FoldError('STORE.NOT_FOUND', `no fold record ${foldId}`, { details: { foldId } });
  const entries: SourceEntry[] = [];
  await collect(store, lookup, record, entries, new Set());
  const actual = sha256Hex(entries.map((entry) => `${entry.bytes}\n`).join(''));
  if (actual !== record.sourceSha256) {
    throw new FoldError(
      'STORE.HASH_MISMATCH',
      `fold ${foldId} source hashes to ${actual}, its record says ${record.sourceSha256}`,
      { details: { foldId, expected: record.sourceSha256, actual } },
    );
  }
  return entries;
}

async function collect(
  store: FoldStore,
  lookup: (foldId: string) => FoldRecord | undefined,
  record: FoldRecord,
  out: SourceEntry[],
  seen: Set<string>,
): Promise<void> {
  if (seen.has(record.id))
    throw new FoldError('STATE.CORRUPT', `fold ${record.id} contains itself`, { details: { foldId: record.id } });
  seen.add(record.id);
  for (const part of record.parts) {
    if (part.kind === 'entry') {
      out.push({ entryId: part.entryId, bytes: await verifiedBlobText(store, part.sha256) });
      continue;
    }
    const child = lookup(part.foldId);
    if (child === undefined)
      throw new FoldError('STORE.NOT_FOUND', `fold ${record.id} names child ${part.foldId}, which has no record`, {
        details: { foldId: record.id, childId: part.foldId },
      });
    await collect(store, lookup, child, out, seen);
  }
}
