import { DelegatingFoldStore } from '../application/delegating-fold-store.ts';
import { FoldError } from '../core/fold-error.ts';
import type { EvidenceReference, EvidenceStore } from '../ports/evidence-store.port.ts';
import type { EngineState, FoldRecord } from '../ports/fold-records.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';

/** The kinds of write a store takes; faults and hooks are chosen per kind. */
export type WriteKind = 'blob' | 'fold' | 'state' | 'evidence';

/**
 * Called around every write that reaches the wrapped store: `before` runs first (it may
 * sleep, so a test can land a SIGKILL inside the phase), `after` once the write returned.
 */
export interface WriteHooks {
  readonly before?: (kind: WriteKind) => Promise<void> | void;
  readonly after?: (kind: WriteKind) => Promise<void> | void;
}

/**
 * A switch shared by the wrappers: while `refusing` holds a kind, writes of that kind fail
 * the way a full disk fails (an errno `ENOSPC` wrapped in `STORE.WRITE_FAILED`, exactly what
 * the filesystem store raises) and nothing reaches the wrapped store.
 */
export class FaultSwitch {
  private refused = new Set<WriteKind>();
  /** Writes refused so far, per kind. */
  readonly refusals: Record<WriteKind, number> = { blob: 0, fold: 0, state: 0, evidence: 0 };

  /** Refuse writes of these kinds (all kinds by default) until `accept` is called. */
  refuse(kinds: readonly WriteKind[] = ['blob', 'fold', 'state', 'evidence']): void {
    this.refused = new Set(kinds);
  }

  accept(): void {
    this.refused.clear();
  }

  get refusing(): boolean {
    return this.refused.size > 0;
  }

  /** Throw the disk-full failure when `kind` is refused. */
  check(kind: WriteKind, storeName: string): void {
    if (!this.refused.has(kind)) return;
    this.refusals[kind] += 1;
    const cause = Object.assign(new Error(`ENOSPC: no space left on device, write (${kind})`), {
      code: 'ENOSPC',
      errno: -28,
    });
    throw new FoldError('STORE.WRITE_FAILED', `${storeName} store could not write a ${kind}: ${cause.message}`, {
      cause,
      details: { kind, code: 'ENOSPC' },
    });
  }
}

/** Options of the fault-injecting wrappers. */
export interface FaultyStoreOptions {
  readonly faults?: FaultSwitch;
  readonly hooks?: WriteHooks;
}

/**
 * A FoldStore that forwards to a real one but can refuse writes on command (disk full) and
 * run hooks around each write (slow writes for crash tests). Reads are never touched, so
 * what it returns is always what the real store holds; the request log, an observation
 * record rather than one of the writes a full disk is simulated for, passes through.
 */
export class FaultyFoldStore extends DelegatingFoldStore {
  readonly faults: FaultSwitch;
  private readonly hooks: WriteHooks;

  constructor(inner: FoldStore, options: FaultyStoreOptions = {}) {
    super(inner);
    this.faults = options.faults ?? new FaultSwitch();
    this.hooks = options.hooks ?? {};
  }

  override putBlob(content: string | Uint8Array): Promise<string> {
    return this.write('blob', () => super.putBlob(content));
  }

  override putFold(sessionId: string, record: FoldRecord): Promise<void> {
    return this.write('fold', () => super.putFold(sessionId, record));
  }

  override saveState(sessionId: string, state: EngineState): Promise<void> {
    return this.write('state', () => super.saveState(sessionId, state));
  }

  // Deleting is a write: a refusing store refuses it too.
  override deleteBlob?(
    sha256: string,
    options: { readonly touchedBefore: number },
  ): Promise<'deleted' | 'kept' | 'absent'> {
    return this.write('blob', () => super.deleteBlob!(sha256, options));
  }

  private async write<T>(kind: WriteKind, run: () => Promise<T>): Promise<T> {
    this.faults.check(kind, this.name);
    await this.hooks.before?.(kind);
    const result = await run();
    await this.hooks.after?.(kind);
    return result;
  }
}

/** The EvidenceStore twin of `FaultyFoldStore` (write kind `evidence`). */
export class FaultyEvidenceStore implements EvidenceStore {
  readonly specificationVersion = 'v1' as const;
  readonly name: string;
  readonly faults: FaultSwitch;
  private readonly hooks: WriteHooks;

  constructor(
    readonly inner: EvidenceStore,
    options: FaultyStoreOptions = {},
  ) {
    this.name = inner.name;
    this.faults = options.faults ?? new FaultSwitch();
    this.hooks = options.hooks ?? {};
  }

  async put(sessionId: string, content: Uint8Array | string, mediaType?: string): Promise<EvidenceReference> {
    this.faults.check('evidence', this.name);
    await this.hooks.before?.('evidence');
    const reference = await this.inner.put(sessionId, content, mediaType);
    await this.hooks.after?.('evidence');
    return reference;
  }

  get(sessionId: string, sha256: string): Promise<Uint8Array> {
    return this.inner.get(sessionId, sha256);
  }

  usage(sessionId: string): Promise<number> {
    return this.inner.usage(sessionId);
  }

  async dispose(): Promise<void> {
    await this.inner.dispose?.();
  }
}
