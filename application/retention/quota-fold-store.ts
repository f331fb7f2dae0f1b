import { FoldError } from '../../core/fold-error.ts';
import { isRecordDamage } from '../../core/store/restore-folds.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { DelegatingFoldStore } from '../delegating-fold-store.ts';

/** Default cap on the blob bytes one session's folds may hold (1 GiB). */
export const DEFAULT_SESSION_CAP_BYTES = 1024 * 1024 * 1024;

/** Caps a session's runtime applies to its store writes. */
export interface StoreCaps {
  /** Blob bytes the session's folds may reference; `Infinity` for none. @default 1073741824 (1 GiB) */
  readonly sessionCapBytes?: number;
  /**
   * Blob bytes the whole store may hold; `Infinity` for none. Measuring it lists every blob
   * once per runtime (at its first new blob), so it is off unless set.
   * @default Infinity
   */
  readonly storeCapBytes?: number;
}

/**
 * A FoldStore of one session that refuses a blob write which would take the session's share,
 * or the whole store, past its cap (`STORE.QUOTA`, nothing written). The runtime skips a
 * commit whose store write fails, so a refusal leaves the window intact and unfolded.
 *
 * A session's share is the size of the distinct blobs its committed folds reference plus the
 * bytes of those it has put since; blobs shared with other sessions count for each. It is
 * measured once, at the first blob write, from the session's state and fold records (entry
 * lengths in UTF-16 units, equal to bytes for ASCII text; no blob is read and the store is not
 * walked), then kept up to date by this runtime's own writes in exact bytes. Another process
 * writing the same store meanwhile is not seen, so the caps are guards against runaway
 * growth, not exact accounting.
 */
export class QuotaFoldStore extends DelegatingFoldStore {
  readonly sessionCapBytes: number;
  readonly storeCapBytes: number;
  private usage: Promise<{ session: Set<string>; sessionBytes: number; storeBytes: number }> | undefined;

  constructor(
    inner: FoldStore,
    private readonly sessionId: string,
    caps: StoreCaps = {},
  ) {
    super(inner);
    this.sessionCapBytes = checkedCap(caps.sessionCapBytes ?? DEFAULT_SESSION_CAP_BYTES, 'sessionCapBytes');
    this.storeCapBytes = checkedCap(caps.storeCapBytes ?? Number.POSITIVE_INFINITY, 'storeCapBytes');
    if (inner.capabilities?.retention !== true || inner.blobInfo === undefined) {
      throw new FoldError(
        'SETTINGS.INVALID',
        `${inner.name} store cannot measure its blobs (no retention support), so size caps cannot apply; pass sessionCapBytes: Infinity and storeCapBytes: Infinity to run without them`,
      );
    }
  }

  override async putBlob(content: string | Uint8Array): Promise<string> {
    const bytes = ownBytes(content);
    const sha256 = sha256Hex(bytes);
    const usage = await this.measure();
    const newToSession = !usage.session.has(sha256);
    if (newToSession && usage.sessionBytes + bytes.length > this.sessionCapBytes)
      throw this.refusal('session', usage.sessionBytes, bytes.length, this.sessionCapBytes);
    // Reserved before any await: a commit puts its blobs side by side, and each must see the others' bytes.
    if (newToSession) {
      usage.session.add(sha256);
      usage.sessionBytes += bytes.length;
    }
    let storeReserved = false;
    try {
      const newToStore = newToSession && (await this.inner.blobInfo!(sha256)) === undefined;
      if (newToStore && usage.storeBytes + bytes.length > this.storeCapBytes)
        throw this.refusal('store', usage.storeBytes, bytes.length, this.storeCapBytes);
      if (newToStore) {
        usage.storeBytes += bytes.length;
        storeReserved = true;
      }
      return await this.inner.putBlob(bytes);
    } catch (error) {
      // Not written: the reservation is given back.
      if (newToSession) {
        usage.session.delete(sha256);
        usage.sessionBytes -= bytes.length;
      }
      if (storeReserved) usage.storeBytes -= bytes.length;
      throw error;
    }
  }

  /** Current usage: measured once (lazily, so a runtime that never folds pays nothing). */
  private measure(): Promise<{ session: Set<string>; sessionBytes: number; storeBytes: number }> {
    this.usage ??= this.measureNow().catch((error: unknown) => {
      this.usage = undefined;
      throw error;
    });
    return this.usage;
  }

  // Reads only the session's state and its own records (direct keys, no walk of the store):
  // blobs it already holds count by their records' entry lengths, so no blob is read.
  private async measureNow(): Promise<{ session: Set<string>; sessionBytes: number; storeBytes: number }> {
    const session = new Set<string>();
    let sessionBytes = 0;
    const state = await this.inner.loadState(this.sessionId);
    for (const foldId of state?.foldIds ?? []) {
      const record = await this.countableRecord(foldId);
      for (const part of record?.parts ?? []) {
        if (part.kind !== 'entry' || session.has(part.sha256)) continue;
        session.add(part.sha256);
        sessionBytes += part.chars;
      }
    }
    let storeBytes = 0;
    if (Number.isFinite(this.storeCapBytes)) {
      for await (const blob of this.inner.listBlobs!()) storeBytes += blob.bytes;
    }
    return { session, sessionBytes, storeBytes };
  }

  /**
   * A listed record that cannot be read as one (damaged, or another fold's record copied over
   * its id) holds no bytes this session can reach: the runtime has already named it lost, so
   * it counts for nothing rather than refusing every later write of the session.
   */
  private async countableRecord(foldId: string) {
    try {
      return await this.inner.getFold(this.sessionId, foldId);
    } catch (error) {
      if (isRecordDamage(error)) return undefined;
      throw error;
    }
  }

  private refusal(scope: 'session' | 'store', usedBytes: number, addedBytes: number, capBytes: number): FoldError {
    const subject =
      scope === 'session' ? `session ${this.sessionId}'s share of the ${this.name} store` : `the ${this.name} store`;
    const option = scope === 'session' ? 'sessionCapBytes' : 'storeCapBytes';
    return new FoldError(
      'STORE.QUOTA',
      `${subject} holds ${usedBytes} bytes of blobs; adding ${addedBytes} would pass its cap of ${capBytes} (${option}). Free space with \`pi-fold gc <store>\` (after ending or dropping old sessions) or raise ${option}; nothing was written`,
      {
        details: { scope, sessionId: this.sessionId, usedBytes, addedBytes, capBytes, option },
      },
    );
  }
}

// A private copy: the bytes measured and hashed here are the bytes handed on, whatever the caller does next.
function ownBytes(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? Buffer.from(content, 'utf8') : Uint8Array.from(content);
}

function checkedCap(value: number, option: string): number {
  if (value === Number.POSITIVE_INFINITY || (Number.isSafeInteger(value) && value >= 1)) return value;
  throw new FoldError(
    'SETTINGS.INVALID',
    `${option} must be a positive integer of bytes or Infinity, got ${String(value)}`,
  );
}
