import type { EvidenceStore } from '../../ports/evidence-store.port.ts';
import { FoldError } from '../fold-error.ts';
import { nextLoopTurn } from '../util/next-loop-turn.ts';
import type { SpilledPart } from './spill-plan.ts';

/** Artifact writes under way at once for a store that allows it. */
export const ARTIFACT_WRITES_IN_FLIGHT = 4;

/**
 * The artifact writes of a session's spills (docs/behaviour.md B6.2), off the request path.
 *
 * A spilled item's window form is decided from the entry alone, and until its artifact is
 * written its exact bytes stay readable from the transcript (the entry is on the branch, and
 * a restarted runtime writes the artifacts of its branch again), so a request never waits
 * for an artifact. What refers to an artifact durably is a fold record over its entry (the
 * state refers to it only through such records): a record is written only once the
 * artifacts of the entries it covers are durable (`durable(sha256s)`), so nothing stored can
 * name an artifact a crash could still lose. Writes start in the order they were asked for
 * (transcript order), one at a time, or up to `ARTIFACT_WRITES_IN_FLIGHT` together on a
 * store that reserves its cap with no await in between (`EvidenceStore.concurrentPuts`):
 * the per-session cap still holds over every write, and a commit, which folds the oldest
 * entries, waits only for the oldest writes.
 */
export class EvidenceWrites {
  /**
   * Resolves when every write started so far has finished (stored or refused), for a store whose
   * puts go one at a time.
   */
  private tail: Promise<void> = Promise.resolve();
  /** Writes waiting for a slot, for a store whose puts may overlap (`EvidenceStore.concurrentPuts`). */
  private readonly waiting: (() => void)[] = [];
  private running = 0;
  /** Each write under way, by the artifact's SHA-256. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Artifacts handed to the store (puts are idempotent; this only saves the calls). */
  private readonly started = new Set<string>();
  private down = false;
  /** The refusal that began an outage, not yet reported to a request. */
  private unreported: string | undefined;
  /** An error that is not the store's (a bug): it fails the next barrier instead of vanishing. */
  private failure: unknown;

  /** Whether no write is under way: a state saved now names nothing that is not yet durable. */
  get idle(): boolean {
    return this.inFlight.size === 0;
  }

  /** Queue the artifact of `part`; returns at once. A part already queued is not written twice. */
  start(store: EvidenceStore, sessionId: string, part: SpilledPart): void {
    const { sha256 } = part.pointer;
    if (this.started.has(sha256)) return;
    this.started.add(sha256);
    const run = async () => {
      try {
        // Not inside the request that asked for it (core/util/next-loop-turn.ts says why).
        await nextLoopTurn();
        await this.write(store, sessionId, part);
      } finally {
        this.inFlight.delete(sha256);
      }
    };
    if (store.concurrentPuts === true) {
      this.inFlight.set(sha256, this.inSlot(run));
      return;
    }
    const written = this.tail.then(run);
    this.inFlight.set(sha256, written);
    this.tail = written;
  }

  /**
   * Run `work` once one of `ARTIFACT_WRITES_IN_FLIGHT` slots is free, in the order asked. Each
   * artifact costs two fsyncs (its bytes, its directory entry); one after another they fall
   * behind a session that spills a result per request, side by side the disk takes them together.
   */
  private async inSlot(work: () => Promise<void>): Promise<void> {
    if (this.running >= ARTIFACT_WRITES_IN_FLIGHT) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      await work();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }

  /**
   * Wait until the artifacts `sha256s` name are durable (or refused by their store), or, with
   * no argument, every artifact started so far. Called before anything that refers to them
   * is persisted.
   * @throws the first error of a write that was not the store's refusal (a bug is never swallowed).
   */
  async durable(sha256s?: Iterable<string>): Promise<void> {
    if (sha256s === undefined) {
      while (this.inFlight.size > 0) await Promise.all(this.inFlight.values());
    } else {
      for (const sha256 of sha256s) await this.inFlight.get(sha256);
    }
    if (this.failure !== undefined) {
      const failure = this.failure;
      this.failure = undefined;
      throw failure;
    }
  }

  /** The warning of an outage that began since the last call (one per outage), if any. */
  takeWarning(): string | undefined {
    const warning = this.unreported;
    this.unreported = undefined;
    return warning;
  }

  private async write(store: EvidenceStore, sessionId: string, part: SpilledPart): Promise<void> {
    try {
      const reference = await store.put(sessionId, part.content, 'text/plain');
      if (reference.sha256 !== part.pointer.sha256) {
        throw new FoldError(
          'STORE.HASH_MISMATCH',
          `${store.name} stored spill ${part.pointer.id} under sha256 ${reference.sha256}, not ${part.pointer.sha256}`,
          { details: { id: part.pointer.id } },
        );
      }
      this.down = false;
    } catch (error) {
      // Not stored: a later branch that meets the same bytes tries again.
      this.started.delete(part.pointer.sha256);
      if (!FoldError.isInstance(error) || !error.code.startsWith('STORE.')) {
        this.failure ??= error;
        return;
      }
      if (!this.down) this.unreported ??= refusedSpillWarning(store.name, error.message);
      this.down = true;
    }
  }
}

function refusedSpillWarning(storeName: string, reason: string): string {
  return `pi-fold: the ${storeName} store refused a spilled item (${reason}); the window shows its head and tail as usual, and peek and search read its exact bytes from the session's transcript while the entry is on the branch. This is shown once per outage.`;
}
