import type { FoldStore } from '../../../ports/fold-store.port.ts';
import { FoldError } from '../../fold-error.ts';
import { verifiedBlobText } from '../../store/verified-reads.ts';
import { nextLoopTurn, onNextLoopTurn } from '../../util/next-loop-turn.ts';

/**
 * How long a blob written ahead of its commit counts as written for that commit. gc keeps an
 * unreferenced blob written within its grace period (docs/storage.md, default 60 minutes),
 * so a commit may rely on a write this recent without putting the blob again; an older one
 * is put again (which refreshes its write time) and read back at the commit, as before.
 */
export const PREWRITE_FRESH_MS = 5 * 60_000;

/**
 * Background blob writes under way at once. Each is a chain of short thread-pool calls (no
 * fsync: that is the flush's), and each call waits for a turn of the event loop, which a
 * busy host gives only a few times per request: writes one after another fall behind a
 * session that makes several blobs per request, side by side they keep up.
 */
export const PREWRITES_IN_FLIGHT = 6;

/** One blob a fold record may come to name: an entry's exact bytes under their SHA-256. */
export interface BlobToStore {
  readonly sha256: string;
  readonly bytes: string;
  readonly entryId: string;
}

/**
 * Put one blob and read it back verified: what a commit needs of each blob before a record
 * may name it (docs/behaviour.md I2: a fold is never shown that cannot be read back).
 */
export async function storeBlobVerified(store: FoldStore, blob: BlobToStore): Promise<void> {
  const stored = await store.putBlob(blob.bytes);
  if (stored !== blob.sha256) {
    throw new FoldError(
      'STORE.WRITE_FAILED',
      `${store.name} store filed entry ${blob.entryId} under ${stored}, expected ${blob.sha256}`,
      { details: { entryId: blob.entryId, sha256: blob.sha256 } },
    );
  }
  await verifiedBlobText(store, blob.sha256);
}

interface QueuedBlob {
  readonly blob: BlobToStore;
  readonly requestTime: number;
}

/**
 * The blobs of pending marks, written before their commit. A mark's span is known when it is
 * cut, long before the cost scheduler lands it, and blobs are content-addressed (a put is
 * idempotent), so the commit request need not pay for them: they are put and read back
 * verified off the request path, then the store is asked to make them durable
 * (`FoldStore.flushBlobs`) once the queue is empty. The commit writes only what is not
 * ready yet (taking over queued blobs instead of waiting for them), then its records. A mark
 * that is dropped leaves blobs nothing names; gc's reachability removes them after its
 * grace period.
 *
 * The commit's order is unchanged: a record is written only after every blob it names has
 * been put and read back in this process, and the store itself syncs what a record names
 * before the record (the flush here only does that work early).
 */
export class BlobPrewrites {
  /** SHA-256 → request time at which its write was asked for, for blobs put and read back. In write order. */
  private readonly ready = new Map<string, number>();
  /** Blobs waiting for a worker, by SHA-256 (a commit may take one over). */
  private readonly queued = new Map<string, QueuedBlob>();
  /** Writes under way, by SHA-256. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** The workers, while any is running. */
  private draining: Promise<void> | undefined;
  /** The newest flush after a drain, while it runs. */
  private flushing: Promise<void> | undefined;
  /** Marks whose blobs were handed over already (a mark that changes is a new object). */
  private readonly seenMarks = new WeakSet<object>();
  /** The newest collection asked for by `startLater`, until its turn comes (or a commit needs it). */
  private collection:
    | { readonly store: FoldStore; readonly collect: () => Iterable<BlobToStore>; readonly requestTime: number }
    | undefined;

  /** The marks of `marks` not seen by an earlier call; each is seen from now on. */
  *marksNotSeen<T extends object>(marks: readonly T[]): Iterable<T> {
    for (const mark of marks) {
      if (this.seenMarks.has(mark)) continue;
      this.seenMarks.add(mark);
      yield mark;
    }
  }

  /**
   * Queue `blobs` not yet ready, queued or under way; returns at once. Without a request time
   * nothing is written ahead: freshness could not be judged at the commit.
   */
  start(store: FoldStore, blobs: Iterable<BlobToStore>, requestTime: number | undefined): void {
    if (requestTime === undefined) return;
    this.forgetStale(requestTime);
    for (const blob of blobs) {
      if (this.ready.has(blob.sha256) || this.queued.has(blob.sha256) || this.inFlight.has(blob.sha256)) continue;
      this.queued.set(blob.sha256, { blob, requestTime });
    }
    if (this.queued.size > 0) this.draining ??= this.drain(store);
  }

  /**
   * Like `start`, with the blobs collected on the loop's next turn: which marks are new and
   * which blobs their spans name is no part of the request that cut them, so the request path
   * does not pay for walking every new mark's span. Asked for again before the turn comes, only the newest
   * collection runs, under the newest request time (the writes happen later still). A commit
   * (`readyAmong`) and `settle` run a collection still waiting first, so nothing is missed.
   */
  startLater(store: FoldStore, collect: () => Iterable<BlobToStore>, requestTime: number | undefined): void {
    if (requestTime === undefined) return;
    const scheduled = this.collection !== undefined;
    this.collection = { store, collect, requestTime };
    if (!scheduled) onNextLoopTurn(() => this.collectWaiting());
  }

  /** Run the collection `startLater` left waiting, if any. */
  private collectWaiting(): void {
    const waiting = this.collection;
    this.collection = undefined;
    if (waiting !== undefined) this.start(waiting.store, waiting.collect(), waiting.requestTime);
  }

  /**
   * Of `sha256s`, the blobs a commit at `requestTime` may rely on without writing them again.
   * Writes under way are waited for; queued ones are taken back (the commit writes them
   * itself, side by side with its other blobs, rather than behind the background queue).
   */
  async readyAmong(sha256s: Iterable<string>, requestTime: number | undefined): Promise<Set<string>> {
    const ready = new Set<string>();
    if (requestTime === undefined) return ready;
    this.collectWaiting();
    const wanted = [...sha256s];
    for (const sha256 of wanted) this.queued.delete(sha256);
    for (const sha256 of wanted) {
      const writing = this.inFlight.get(sha256);
      if (writing !== undefined) await writing;
      const askedAt = this.ready.get(sha256);
      if (askedAt !== undefined && isFresh(askedAt, requestTime)) ready.add(sha256);
    }
    return ready;
  }

  /** Wait until nothing is queued, under way or being flushed (a closing session, tests). */
  async settle(): Promise<void> {
    this.collectWaiting();
    while (this.draining !== undefined || this.flushing !== undefined) await (this.draining ?? this.flushing);
  }

  private async drain(store: FoldStore): Promise<void> {
    // Not inside the request that queued them (core/util/next-loop-turn.ts says why); a commit
    // meanwhile takes back what is still queued.
    await nextLoopTurn();
    await Promise.all(Array.from({ length: PREWRITES_IN_FLIGHT }, () => this.work(store)));
    this.draining = undefined;
    // The queue is empty: the batch is made durable ahead of the record that will need it.
    // Writing goes on meanwhile (a new drain may start): the flush is not in the writes' way.
    const flush = (store.flushBlobs?.() ?? Promise.resolve()).catch(() => undefined);
    const tracked = flush.then(() => {
      if (this.flushing === tracked) this.flushing = undefined;
    });
    this.flushing = tracked;
  }

  private async work(store: FoldStore): Promise<void> {
    for (let next = this.queued.values().next(); next.done !== true; next = this.queued.values().next()) {
      const { blob, requestTime } = next.value;
      this.queued.delete(blob.sha256);
      // A refused or failed write is only not ready: the commit writes it and meets the error itself.
      const written = storeBlobVerified(store, blob).then(
        () => void this.ready.set(blob.sha256, requestTime),
        () => undefined,
      );
      this.inFlight.set(blob.sha256, written);
      await written;
      this.inFlight.delete(blob.sha256);
    }
  }

  /** Drop blobs written too long ago to count (the map is in write order, so from the front). */
  private forgetStale(requestTime: number): void {
    for (const [sha256, askedAt] of this.ready) {
      if (isFresh(askedAt, requestTime)) break;
      this.ready.delete(sha256);
    }
  }
}

function isFresh(askedAt: number, requestTime: number): boolean {
  // A clock that went back is not trusted either way.
  return requestTime >= askedAt && requestTime - askedAt <= PREWRITE_FRESH_MS;
}
