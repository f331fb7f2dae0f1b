import { createHash } from 'node:crypto';
import type { FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { sampleEngineState } from '../../testing/store-fixtures.ts';

/** The store operations a session's folding performs, timed one by one. */
export const OPERATIONS = ['putBlob', 'putFold', 'getBlob', 'getFold', 'saveState'] as const;
export type Operation = (typeof OPERATIONS)[number];
export type Timings = Record<Operation, number[]>;

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

/** Blobs every session also writes: content-addressed dedup across processes is exercised too. */
const SHARED_BLOBS = 4;

/**
 * The exact bytes of fold `index` of `sessionId`: derived, not random, so whoever checks the
 * store afterwards can rebuild them and compare byte for byte. 2–8 KB, varied by session.
 */
export function foldBytes(sessionId: string, index: number): string {
  const seed = sha256(`${sessionId}:${index}`);
  const size = 2_048 + (parseInt(seed.slice(0, 4), 16) % 6_144);
  return `${sessionId} fold ${index} ${seed}\n`.padEnd(size, seed);
}

export function sharedBytes(index: number): string {
  return `shared blob ${index % SHARED_BLOBS}\n`.padEnd(4_096, 'shared');
}

/** The fold record session `sessionId` writes for `index`: deterministic like its bytes. */
export function foldRecordFor(sessionId: string, index: number): FoldRecord {
  const own = foldBytes(sessionId, index);
  const shared = sharedBytes(index);
  return {
    schemaVersion: 1,
    id: `fold_${sha256(`${sessionId}#${index}`).slice(0, 24)}`,
    kind: 'tool',
    origin: 'runtime',
    firstEntryId: `${sessionId}-e${index}a`,
    lastEntryId: `${sessionId}-e${index}b`,
    parts: [
      { kind: 'entry', entryId: `${sessionId}-e${index}a`, sha256: sha256(own), chars: own.length },
      { kind: 'entry', entryId: `${sessionId}-e${index}b`, sha256: sha256(shared), chars: shared.length },
    ],
    sourceSha256: sha256(`${own}\n${shared}\n`),
    sourceChars: own.length + shared.length,
    entryCount: 2,
    brief: `fold ${index} of ${sessionId}`,
    provenance: 'deterministic',
    toolCalls: [{ toolCallId: `${sessionId}-call-${index}`, toolName: 'read_file' }],
    epoch: index + 1,
  };
}

/** The state a session saves after its fold `index`: it lists every fold so far. */
export function stateFor(sessionId: string, index: number) {
  return {
    ...sampleEngineState(sessionId, index + 1),
    foldIds: Array.from({ length: index + 1 }, (_, n) => foldRecordFor(sessionId, n).id),
    pins: [],
    inserts: [],
  };
}

async function timed<T>(timings: Timings, operation: Operation, run: () => Promise<T>): Promise<T> {
  const start = process.hrtime.bigint();
  const result = await run();
  timings[operation].push(Number(process.hrtime.bigint() - start) / 1e6);
  return result;
}

export function emptyTimings(): Timings {
  return { putBlob: [], putFold: [], getBlob: [], getFold: [], saveState: [] };
}

/**
 * One session's folding against a shared store, in the order the runtime writes: blobs,
 * read back verified, the fold record, then the state that lists it. Throws if anything it
 * reads back is not exactly what it wrote.
 */
export async function runSession(store: FoldStore, sessionId: string, folds: number, timings: Timings): Promise<void> {
  for (let index = 0; index < folds; index += 1) {
    const own = foldBytes(sessionId, index);
    const shared = sharedBytes(index);
    await timed(timings, 'putBlob', () => store.putBlob(own));
    await timed(timings, 'putBlob', () => store.putBlob(shared));
    const back = await timed(timings, 'getBlob', () => store.getBlob(sha256(own)));
    if (Buffer.from(back).toString('utf8') !== own)
      throw new Error(`${sessionId}: blob ${index} read back different bytes`);
    const record = foldRecordFor(sessionId, index);
    await timed(timings, 'putFold', () => store.putFold(sessionId, record));
    const again = await timed(timings, 'getFold', () => store.getFold(sessionId, record.id));
    if (again?.id !== record.id) throw new Error(`${sessionId}: fold ${record.id} did not read back`);
    await timed(timings, 'saveState', () => store.saveState(sessionId, stateFor(sessionId, index)));
  }
}

/** p50/p99/max in ms and operations per second of one operation's timings. */
export function summarize(
  samples: readonly number[],
  wallMs: number,
): { count: number; p50: number; p99: number; max: number; perSecond: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.floor(quantile * sorted.length))] ?? 0;
  return {
    count: sorted.length,
    p50: at(0.5),
    p99: at(0.99),
    max: sorted.at(-1) ?? 0,
    perSecond: wallMs > 0 ? (sorted.length * 1000) / wallMs : 0,
  };
}
