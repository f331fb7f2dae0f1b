/** Room core/spill/: oversized tool output cut at ingestion, its exact bytes kept in the EvidenceStore. */

import type { EvidenceStore } from '../../ports/evidence-store.port.ts';
import type { SpillPointer } from '../../ports/projection-sink.port.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { FoldError } from '../fold-error.ts';
import type { SpillPolicy } from '../settings/spill-policy.ts';
import type { TranscriptIndex } from '../transcript/transcript-index.ts';
import { sha256Hex } from '../util/hashing.ts';
import { EvidenceWrites } from './evidence-writes.ts';
import { maySpill, planSpill, SPILL_ID_PREFIX, type SpilledPart, type SpillPlan } from './spill-plan.ts';

/** Where a spilled item was read from: its artifact, or the host's transcript when no artifact was written. */
export type SpillSource = 'evidence' | 'transcript';

/** A spilled item read back and verified against its SHA-256. */
export interface SpillRead {
  readonly pointer: SpillPointer;
  readonly part: SpilledPart | undefined;
  readonly bytes: Uint8Array;
  readonly source: SpillSource;
}

/** Outcome of writing the artifacts of newly ingested entries. */
export interface SpillIngest {
  /** Items spilled among the entries ingested. */
  readonly spilled: number;
  /** A warning, once per evidence outage, when the store refused an artifact. */
  readonly warning?: string;
}

/**
 * The session's spills (B6.2, `docs/behaviour.md`): how each entry is shown, the pointer of
 * every spilled item on the branch, and the artifacts behind them in the EvidenceStore.
 *
 * Decided once per entry object (entries are immutable) under one policy per session: the
 * policy is kept in the session's state, so a restart with other settings shows the same
 * window (docs/behaviour.md I1) and the provider's cached prefix survives it.
 */
export class SpillBook {
  private readonly plans = new WeakMap<TranscriptEntry, SpillPlan | null>();
  private readonly pointers = new Map<string, { readonly pointer: SpillPointer; readonly entryId: string }>();
  /** The artifact writes still under way, which anything persisted after them waits for. */
  readonly evidence = new EvidenceWrites();

  constructor(
    readonly policy: SpillPolicy,
    private readonly toolName: string,
  ) {}

  /** How `entry` is shown, when something in it is spilled. */
  planFor(entry: TranscriptEntry): SpillPlan | undefined {
    if (!maySpill(entry, this.policy)) return undefined;
    let plan = this.plans.get(entry);
    if (plan === undefined) {
      plan = planSpill(entry, this.policy, this.toolName) ?? null;
      this.plans.set(entry, plan);
      for (const part of plan?.parts ?? [])
        this.pointers.set(part.pointer.id, { pointer: part.pointer, entryId: entry.id });
    }
    return plan ?? undefined;
  }

  /** Chars `entry` occupies in the window. */
  windowChars(entry: TranscriptEntry): number {
    return this.planFor(entry)?.bytes.length ?? entry.bytes.length;
  }

  /** Whether `id` names a spill (known or not). */
  static isSpillId(id: string): boolean {
    return id.startsWith(SPILL_ID_PREFIX);
  }

  /** The pointer of a spill met on this runtime's branches. */
  pointer(id: string): SpillPointer | undefined {
    return this.pointers.get(id)?.pointer;
  }

  /** The entry a known spill belongs to. */
  entryOf(id: string): string | undefined {
    return this.pointers.get(id)?.entryId;
  }

  /**
   * Start writing the artifacts of the entries from `from` on, and return at once: the
   * window form does not depend on them, and the exact bytes stay readable from the
   * transcript while the entry is on the branch (see `read`). A fold record over the entry
   * waits for its artifact (`evidence.durable`). A refused write never stops a request; its
   * warning comes with the first request after the store refused.
   */
  ingest(index: TranscriptIndex, from: number, store: EvidenceStore | undefined, sessionId: string): SpillIngest {
    let spilled = 0;
    for (let position = from; position < index.length; position += 1) {
      const plan = this.planFor(index.entries[position]!);
      if (plan === undefined) continue;
      spilled += plan.parts.length;
      if (store === undefined) continue;
      for (const part of plan.parts) this.evidence.start(store, sessionId, part);
    }
    const warning = this.evidence.takeWarning();
    return { spilled, ...(warning === undefined ? {} : { warning }) };
  }

  /**
   * Read a spilled item and verify it before anything is shown (docs/behaviour.md I2): from its artifact, or,
   * when the store never got one, from the entry still on the branch. A corrupted artifact is
   * refused with `STORE.HASH_MISMATCH`; it is never replaced by another copy silently.
   * Returns undefined for an id this runtime has not met.
   */
  async read(
    id: string,
    index: TranscriptIndex,
    store: EvidenceStore | undefined,
    sessionId: string,
  ): Promise<SpillRead | undefined> {
    const known = this.pointers.get(id);
    if (known === undefined) return undefined;
    const { pointer } = known;
    const position = index.positionOf(known.entryId);
    const part =
      position === undefined
        ? undefined
        : this.planFor(index.entries[position]!)?.parts.find((candidate) => candidate.pointer.id === id);
    let bytes: Uint8Array | undefined;
    let source: SpillSource = 'evidence';
    if (store !== undefined) {
      // An artifact still being written is read once it is there, not from a half-finished write.
      await this.evidence.durable([pointer.sha256]);
      try {
        bytes = await store.get(sessionId, pointer.sha256);
      } catch (error) {
        if (!FoldError.isInstance(error))
          throw new FoldError('STORE.READ_FAILED', `${store.name} failed to read spill ${id}`, {
            cause: error,
            details: { id },
          });
        if (error.code !== 'STORE.NOT_FOUND') throw refusal(error, id, store.name);
      }
    }
    if (bytes === undefined) {
      if (part === undefined) {
        throw new FoldError(
          'STORE.NOT_FOUND',
          `spill ${id}: ${store === undefined ? 'no evidence store is configured' : `the ${store.name} store has no artifact`} and its entry is no longer on this branch`,
          { details: { id, sha256: pointer.sha256 } },
        );
      }
      bytes = Buffer.from(part.content, 'utf8');
      source = 'transcript';
    }
    const actual = sha256Hex(bytes);
    if (actual !== pointer.sha256) {
      throw new FoldError(
        'STORE.HASH_MISMATCH',
        `spill ${id}: the ${source === 'evidence' ? 'stored artifact' : 'transcript copy'} hashes to ${actual}, not ${pointer.sha256}; nothing of it is shown`,
        { details: { id, sha256: pointer.sha256, actual } },
      );
    }
    return { pointer, part, bytes, source };
  }

  /** Every spilled item of the entries in positions [0, length), in transcript order. */
  *spilledParts(index: TranscriptIndex): Generator<{ position: number; part: SpilledPart }> {
    for (let position = 0; position < index.length; position += 1) {
      const plan = this.planFor(index.entries[position]!);
      for (const part of plan?.parts ?? []) yield { position, part };
    }
  }
}

function refusal(error: FoldError, id: string, storeName: string): FoldError {
  return new FoldError(
    error.code,
    `spill ${id}: ${storeName} refused the read (${error.message}); nothing of it is shown`,
    { cause: error, details: { id, ...(error.details ?? {}) } },
  );
}

/** The session's spilled items (docs/behaviour.md B6.2), read only: where each spill id's exact bytes are. */
export type SpillBookView = Pick<SpillBook, 'pointer' | 'entryOf' | 'planFor' | 'windowChars'>;
