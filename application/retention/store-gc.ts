import { FoldError } from '../../core/fold-error.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { type DamagedReference, findReachableBlobs } from './store-reachability.ts';

/** How long an unreferenced blob must have gone unwritten before gc may delete it. @default 1 hour */
export const DEFAULT_GC_GRACE_MS = 60 * 60 * 1000;

/** Options of one garbage collection. */
export interface GarbageCollectionOptions {
  /** Report what would be freed and change nothing. @default false */
  readonly dryRun?: boolean;
  /**
   * Keep unreferenced blobs written (or re-put) less than this long before the scan began:
   * a concurrent writer puts a fold's blobs before its record, so for a moment they are
   * unreferenced. Must exceed the longest commit (blob put → record put) of any writer.
   * @default 3600000 (1 hour)
   */
  readonly graceMs?: number;
  /** The clock, for tests. @default Date.now */
  readonly now?: () => number;
  /** Progress for long runs (per session, every `progressEvery` blobs, and as deletion starts); awaited. */
  readonly onProgress?: (progress: GarbageCollectionProgress) => void | Promise<void>;
  /** @default 1000 */
  readonly progressEvery?: number;
}

export interface GarbageCollectionProgress {
  readonly phase: 'sessions' | 'blobs' | 'delete';
  readonly done: number;
  /** Known only for sessions and deletion. */
  readonly total?: number;
}

/** Count and bytes of a set of blobs. */
export interface BlobTally {
  count: number;
  bytes: number;
}

/** What one garbage collection found and did. */
export interface GarbageCollectionReport {
  readonly dryRun: boolean;
  /** When the scan began (ms since the epoch); blobs touched since `startedAt - graceMs` are kept. */
  readonly startedAt: number;
  readonly graceMs: number;
  readonly sessions: number;
  readonly folds: number;
  /** Distinct blobs some fold references. */
  readonly referencedBlobs: number;
  /** Every blob seen. */
  readonly scanned: BlobTally;
  /** Unreferenced and older than the grace period: what gc deletes (or would, in a dry run). */
  readonly collectable: BlobTally;
  /** Unreferenced but written within the grace period: kept this time. */
  readonly recent: BlobTally;
  /** Actually deleted (0 in a dry run). */
  readonly deleted: BlobTally;
  /** Collectable when scanned but re-put by a writer before the delete, so kept. */
  readonly refreshed: BlobTally;
  /** Damaged records and states walked around (each named by key; the blobs a damaged record names are kept). */
  readonly damaged: readonly DamagedReference[];
  readonly durationMs: number;
}

/**
 * Delete every blob no fold record or engine state of any session references, never one that
 * is referenced. References are collected first; blobs are then listed and only those both
 * unreferenced and last written before `startedAt - graceMs` are deleted, each re-checked by
 * the store at the moment of deletion. A blob a concurrent writer puts (or re-puts) after the
 * cut-off is therefore kept, even if its fold record lands after the reference scan.
 */
export async function collectGarbage(
  store: FoldStore,
  options: GarbageCollectionOptions = {},
): Promise<GarbageCollectionReport> {
  if (store.capabilities?.retention !== true || store.listBlobs === undefined || store.deleteBlob === undefined) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `${store.name} store does not support retention (listSessions, listBlobs, deleteBlob); gc cannot run on it`,
    );
  }
  const graceMs = options.graceMs ?? DEFAULT_GC_GRACE_MS;
  if (!Number.isFinite(graceMs) || graceMs < 0)
    throw new FoldError('SETTINGS.INVALID', `gc grace must be a non-negative number of ms, got ${graceMs}`);
  const now = options.now ?? Date.now;
  const every = options.progressEvery ?? 1000;
  const progress = options.onProgress ?? (() => undefined);
  const startedAt = now();
  const cutoff = startedAt - graceMs;
  const reachable = await findReachableBlobs(store, (_id, done, total) => progress({ phase: 'sessions', done, total }));

  const scanned = tally();
  const collectable = tally();
  const recent = tally();
  const candidates: { sha256: string; bytes: number }[] = [];
  for await (const blob of store.listBlobs()) {
    add(scanned, blob.bytes);
    if (scanned.count % every === 0) await progress({ phase: 'blobs', done: scanned.count });
    if (reachable.referenced.has(blob.sha256)) continue;
    if (blob.touchedAt >= cutoff) {
      add(recent, blob.bytes);
      continue;
    }
    add(collectable, blob.bytes);
    candidates.push({ sha256: blob.sha256, bytes: blob.bytes });
  }

  const deleted = tally();
  const refreshed = tally();
  if (options.dryRun !== true) {
    await progress({ phase: 'delete', done: 0, total: candidates.length });
    for (const [position, candidate] of candidates.entries()) {
      const outcome = await store.deleteBlob(candidate.sha256, { touchedBefore: cutoff });
      if (outcome === 'deleted') add(deleted, candidate.bytes);
      else if (outcome === 'kept') add(refreshed, candidate.bytes);
      if ((position + 1) % every === 0)
        await progress({ phase: 'delete', done: position + 1, total: candidates.length });
    }
  }
  return {
    dryRun: options.dryRun === true,
    startedAt,
    graceMs,
    sessions: reachable.sessions,
    folds: reachable.folds,
    referencedBlobs: reachable.referenced.size,
    scanned,
    collectable,
    recent,
    deleted,
    refreshed,
    damaged: reachable.damaged,
    durationMs: now() - startedAt,
  };
}

function tally(): BlobTally {
  return { count: 0, bytes: 0 };
}

function add(target: BlobTally, bytes: number): void {
  target.count += 1;
  target.bytes += bytes;
}
