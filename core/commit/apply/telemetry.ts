import type { CommitTelemetry, LedgerRow } from '../../../ports/projection-sink.port.ts';
import type { WindowView } from '../../render/window-log.ts';

/** Commits kept for status views (the host's own log keeps the full history). */
const RECENT_COMMITS = 20;

/** Where each event goes (the session's outbound channel), and how many of its listeners threw. */
export interface TelemetryOutlet {
  commitTelemetry(event: CommitTelemetry): void;
  readonly listenerFailures: number;
  readonly lastListenerFailure: string | undefined;
}

/**
 * Per-commit telemetry that reports what happened, not what was intended: estimates when
 * the commit lands, then the provider's own counts once the request that carried it is
 * answered. Nothing here changes the window.
 */
export class CommitTelemetryLog {
  private readonly recentEvents: CommitTelemetry[] = [];
  /** The landed commit whose usage has not arrived yet, by request number. */
  private awaitingUsage: CommitTelemetry | undefined;
  constructor(
    private readonly sessionId: string,
    private readonly outlet: TelemetryOutlet,
  ) {}

  /** Host listeners (or the sink) that threw: shown in status, never thrown. */
  get listenerFailures(): number {
    return this.outlet.listenerFailures;
  }

  get lastListenerFailure(): string | undefined {
    return this.outlet.lastListenerFailure;
  }

  /** The latest commits, oldest first, each in its most complete phase. */
  get recent(): readonly CommitTelemetry[] {
    return this.recentEvents;
  }

  /** A commit landed in the projection of `row`; `previous` is the window it rewrote. */
  landed(input: {
    row: LedgerRow;
    epoch: number;
    previous: WindowView | undefined;
    measuredTokensBefore: number | undefined;
    tokensForChars: (chars: number) => number;
  }): void {
    const { row, previous } = input;
    let rewrittenChars = 0;
    if (previous !== undefined) {
      for (let position = row.divergenceIndex; position < previous.length; position += 1)
        rewrittenChars += previous.log.messages[position]!.bytes.length;
    }
    const event: CommitTelemetry = {
      schemaVersion: 1,
      phase: 'landed',
      sessionId: this.sessionId,
      epoch: input.epoch,
      request: row.request,
      causes: row.causes,
      foldsLanded: row.foldsLanded,
      estimatedTokensBefore: row.preCommitTokens,
      estimatedTokensAfter: row.estimatedTokens,
      ...(input.measuredTokensBefore === undefined ? {} : { measuredTokensBefore: input.measuredTokensBefore }),
      prefixMessagesKept: Math.min(row.divergenceIndex, previous?.length ?? 0),
      prefixCharsRewritten: rewrittenChars,
      prefixTokensRewritten: Math.round(input.tokensForChars(rewrittenChars)),
    };
    this.awaitingUsage = event;
    this.keep(event);
  }

  /** The provider answered request `request` with these counts. */
  measured(request: number, promptTokens: number, cacheRead: number): void {
    const landed = this.awaitingUsage;
    if (landed === undefined || landed.request !== request) return;
    this.awaitingUsage = undefined;
    this.keep({ ...landed, phase: 'measured', measuredTokensAfter: promptTokens, providerCacheRead: cacheRead });
  }

  private keep(event: CommitTelemetry): void {
    const last = this.recentEvents[this.recentEvents.length - 1];
    if (last !== undefined && last.epoch === event.epoch) this.recentEvents[this.recentEvents.length - 1] = event;
    else this.recentEvents.push(event);
    if (this.recentEvents.length > RECENT_COMMITS) this.recentEvents.shift();
    this.outlet.commitTelemetry(event);
  }
}

/** The latest commits' telemetry and the listeners that failed, read only. */
export interface TelemetryView {
  readonly recent: readonly CommitTelemetry[];
  readonly listenerFailures: number;
  readonly lastListenerFailure: string | undefined;
}
