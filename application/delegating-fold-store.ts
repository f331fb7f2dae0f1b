import type { EngineState, FoldRecord } from '../ports/fold-records.ts';
import type {
  FoldStore,
  FoldStoreCapabilities,
  ListAllFoldsOptions,
  StoredBlobInfo,
} from '../ports/fold-store.port.ts';
import type { RequestLogRow } from '../ports/request-log.ts';

/** The port's optional members (every optional key but `capabilities`). */
type OptionalMember = Exclude<
  { [K in keyof FoldStore]-?: object extends Pick<FoldStore, K> ? K : never }[keyof FoldStore],
  'capabilities'
>;

// A record over the optional members, so a member added to the port and not here fails to compile.
const OPTIONAL_MEMBER_NAMES: Readonly<Record<OptionalMember, true>> = {
  flushBlobs: true,
  dispose: true,
  listSessions: true,
  listAllFolds: true,
  listBlobs: true,
  blobInfo: true,
  deleteBlob: true,
  appendRequestLog: true,
  readRequestLog: true,
};
const OPTIONAL_MEMBERS = Object.keys(OPTIONAL_MEMBER_NAMES) as readonly OptionalMember[];

/**
 * A FoldStore that hands every call to `inner`: the base of the stores that wrap another
 * (size caps, fault injection), which override only the members they change.
 *
 * Capabilities are the inner store's, and an optional member exists exactly when the inner
 * store has it: a member the inner store lacks is `undefined` on the wrapper too, override
 * or not, so a wrapper never offers what the store behind it cannot do (callers check the
 * member, as the port says, rather than probing it).
 */
export abstract class DelegatingFoldStore implements FoldStore {
  readonly specificationVersion = 'v1' as const;
  readonly name: string;
  readonly capabilities: FoldStoreCapabilities | undefined;

  constructor(
    /** The store every call goes to. */
    readonly inner: FoldStore,
  ) {
    this.name = inner.name;
    this.capabilities = inner.capabilities;
    for (const member of OPTIONAL_MEMBERS) {
      // An own property shadows the forwarding method (and any subclass override of it).
      if (inner[member] === undefined) Object.defineProperty(this, member, { value: undefined, enumerable: false });
    }
  }

  putBlob(content: string | Uint8Array): Promise<string> {
    return this.inner.putBlob(content);
  }

  getBlob(sha256: string): Promise<Uint8Array> {
    return this.inner.getBlob(sha256);
  }

  hasBlob(sha256: string): Promise<boolean> {
    return this.inner.hasBlob(sha256);
  }

  putFold(sessionId: string, record: FoldRecord): Promise<void> {
    return this.inner.putFold(sessionId, record);
  }

  getFold(sessionId: string, foldId: string): Promise<FoldRecord | undefined> {
    return this.inner.getFold(sessionId, foldId);
  }

  listFolds(sessionId: string): Promise<readonly FoldRecord[]> {
    return this.inner.listFolds(sessionId);
  }

  saveState(sessionId: string, state: EngineState): Promise<void> {
    return this.inner.saveState(sessionId, state);
  }

  loadState(sessionId: string): Promise<EngineState | undefined> {
    return this.inner.loadState(sessionId);
  }

  async flushBlobs?(): Promise<void> {
    await this.inner.flushBlobs!();
  }

  async dispose?(): Promise<void> {
    await this.inner.dispose!();
  }

  listSessions?(): Promise<readonly string[]> {
    return this.inner.listSessions!();
  }

  listAllFolds?(
    options?: ListAllFoldsOptions,
  ): AsyncIterable<{ readonly sessionId: string; readonly record: FoldRecord }> {
    return this.inner.listAllFolds!(options);
  }

  listBlobs?(): AsyncIterable<StoredBlobInfo> {
    return this.inner.listBlobs!();
  }

  blobInfo?(sha256: string): Promise<StoredBlobInfo | undefined> {
    return this.inner.blobInfo!(sha256);
  }

  deleteBlob?(sha256: string, options: { readonly touchedBefore: number }): Promise<'deleted' | 'kept' | 'absent'> {
    return this.inner.deleteBlob!(sha256, options);
  }

  appendRequestLog?(sessionId: string, rows: readonly RequestLogRow[]): Promise<void> {
    return this.inner.appendRequestLog!(sessionId, rows);
  }

  readRequestLog?(sessionId: string): Promise<readonly RequestLogRow[]> {
    return this.inner.readRequestLog!(sessionId);
  }
}
