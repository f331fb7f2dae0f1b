import type { EvidenceStore } from '../../ports/evidence-store.port.ts';
import { FoldError } from '../fold-error.ts';
import type { SpilledPart } from './spill-plan.ts';

/**
 * The artifact writes of a session's spills (docs/behaviour.md B6.2), off the request path.
 *
 * A spilled item's window form is decided from the entry alone, and until its artifact is
 * written its exact bytes stay readable from the transcript (the entry is on the branch, and
 * a restarted runtime writes the artifacts of its branch again), so a request never waits
 * for an artifact. What refers to an artifact durably is a fold record over its entry (the
 * state refers to it only through such records): a record is written only once the
 * artifacts of the entries it covers are durable (`durable(sha256s)`), so nothing stored can
 * name an artifact a crash could still lose. Writes run one at a time, in the order they
 * were started (transcript order): the store's per-session cap is checked against every
 * earlier write, as it was when each request waited for its own, and a commit, which folds
 * the oldest entries, waits only for the oldest writes.
 */
export class EvidenceWrites {
  /** Resolves when every write started so far has finished (stored or refused). */
  private tail: Promise<void> = Promise.resolve();
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
    const written = this.tail.then(async () => {
      try {
        await this.write(store, sessionId, part);
      } finally {
        this.inFlight.delete(sha256);
      }
    });
    this.inFlight.set(sha256, written);
    this.tail = written;
  }

  /**
   * Wait until the artifacts `sha256s` name are durable (or refused by their store), or, with
   * no argument, every artifact started so far. Called before anything that refers to them
   * is persisted.
   * @throws the first error of a write that was not the store's refusal (a bug is never swallowed).
   */
  async durable(sha256s?: Iterable<string>): Promise<void> {
    if (sha256s === undefined) {
      while (this.inFlight.size > 0) await this.tail;
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
        throw new FoldError('STORE.HASH_MISMATCH', `${store.name} stored spill ${part.pointer.id} under sha256 ${reference.sha256}, not ${part.pointer.sha256}`, { details: { id: part.pointer.id } });
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
