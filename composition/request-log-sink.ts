import type { FoldStore } from '../ports/fold-store.port.ts';
import type { FoldWarning } from '../ports/fold-warning.ts';
import type {
  ActionTelemetry,
  CommitTelemetry,
  LedgerRow,
  Projection,
  ProjectionSink,
  UsageTelemetry,
} from '../ports/projection-sink.port.ts';
import type { RequestLogRow, RequestLogSpillV1 } from '../ports/request-log.ts';

/** Rows buffered before one append: a crash costs at most this many of the newest rows. */
const ROWS_PER_APPEND = 16;

/**
 * Keeps the session's request log in its fold store (stores that declare `requestLog`), for
 * `pi-fold view`. A request's row is written once its successor arrives, so the provider's
 * cache read (reported after the request) is in it. Writes run off the request path, in
 * order; a failed write is counted, never thrown into a request.
 */
export class RequestLogSink implements ProjectionSink {
  readonly specificationVersion = 'v1' as const;
  private pending: { readonly ledger: LedgerRow; readonly spills: readonly RequestLogSpillV1[] } | undefined;
  /** Spills already logged, so each is listed once: at the request that first showed it. */
  private readonly spillsLogged = new Set<string>();
  private buffer: RequestLogRow[] = [];
  private writing: Promise<void> = Promise.resolve();
  /** Appends the store refused (the log only; folding is not affected). */
  failures = 0;
  lastFailure: string | undefined;

  constructor(
    private readonly store: FoldStore & Required<Pick<FoldStore, 'appendRequestLog'>>,
    private readonly sessionId: string,
    private readonly inner?: ProjectionSink,
  ) {}

  accept(projection: Projection): void {
    this.inner?.accept(projection);
    if (this.pending !== undefined) this.push(requestRow(this.pending.ledger, this.pending.spills));
    this.pending = { ledger: projection.ledger, spills: this.newSpills(projection) };
  }

  private newSpills(projection: Projection): RequestLogSpillV1[] {
    const spills: RequestLogSpillV1[] = [];
    for (const message of projection.messages) {
      if (message.kind !== 'spilled') continue;
      for (const pointer of message.spills) {
        if (this.spillsLogged.has(pointer.id)) continue;
        this.spillsLogged.add(pointer.id);
        const { id, sha256, bytes, headBytes, tailBytes } = pointer;
        spills.push({ id, entryId: message.entryId, sha256, bytes, headBytes, tailBytes });
      }
    }
    return spills;
  }

  acceptCommitTelemetry(event: CommitTelemetry): void {
    this.inner?.acceptCommitTelemetry?.(event);
    if (event.phase !== 'measured') return;
    this.push({
      schemaVersion: 1,
      kind: 'commit',
      request: event.request,
      epoch: event.epoch,
      causes: [...event.causes],
      foldsLanded: event.foldsLanded,
      estimatedTokensBefore: event.estimatedTokensBefore,
      estimatedTokensAfter: event.estimatedTokensAfter,
      prefixTokensRewritten: event.prefixTokensRewritten,
      ...(event.measuredTokensAfter === undefined ? {} : { measuredTokensAfter: event.measuredTokensAfter }),
      ...(event.providerCacheRead === undefined ? {} : { providerCacheRead: event.providerCacheRead }),
    });
  }

  acceptUsage(event: UsageTelemetry): void {
    this.inner?.acceptUsage?.(event);
  }

  acceptWarning(warning: FoldWarning): void {
    this.inner?.acceptWarning?.(warning);
  }

  acceptAction(event: ActionTelemetry): void {
    this.inner?.acceptAction?.(event);
  }

  /** Write everything seen so far, the newest request included (a viewer is about to read). */
  async flush(): Promise<void> {
    if (this.pending !== undefined) this.buffer.push(requestRow(this.pending.ledger, this.pending.spills));
    this.pending = undefined;
    this.drain();
    await this.writing;
  }

  private push(row: RequestLogRow): void {
    this.buffer.push(row);
    if (this.buffer.length >= ROWS_PER_APPEND) this.drain();
  }

  private drain(): void {
    if (this.buffer.length === 0) return;
    const rows = this.buffer;
    this.buffer = [];
    this.writing = this.writing.then(() =>
      this.store.appendRequestLog(this.sessionId, rows).catch((error: unknown) => {
        this.failures += 1;
        this.lastFailure = error instanceof Error ? error.message : String(error);
      }),
    );
  }
}

function requestRow(row: LedgerRow, spills: readonly RequestLogSpillV1[]): RequestLogRow {
  return {
    schemaVersion: 1,
    kind: 'request',
    request: row.request,
    estimatedTokens: row.estimatedTokens,
    budgetTokens: row.budgetTokens,
    causes: [...row.causes],
    foldsLanded: row.foldsLanded,
    totalChars: row.totalChars,
    divergenceIndex: row.divergenceIndex,
    ...(row.providerCacheRead === undefined ? {} : { providerCacheRead: row.providerCacheRead }),
    ...(spills.length === 0 ? {} : { spills }),
  };
}

/** The store's request log, when it keeps one. */
export function requestLogOf(
  store: FoldStore,
): (FoldStore & Required<Pick<FoldStore, 'appendRequestLog' | 'readRequestLog'>>) | undefined {
  return store.capabilities?.requestLog === true &&
    store.appendRequestLog !== undefined &&
    store.readRequestLog !== undefined
    ? (store as FoldStore & Required<Pick<FoldStore, 'appendRequestLog' | 'readRequestLog'>>)
    : undefined;
}
