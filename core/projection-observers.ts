import type { ProjectionObserver, ProjectionSink } from '../ports/projection-sink.port.ts';
import type { ActionTelemetry, CommitTelemetry, FoldWarning, Projection, UsageTelemetry } from '../ports/shared-types.ts';

export type { ProjectionObserver } from '../ports/projection-sink.port.ts';

/**
 * The session's one outbound channel: the configured ProjectionSink first, then every
 * subscribed observer, for projections, commit telemetry and warnings alike. The sink's
 * `accept` may throw (a host that cannot take the window must say so); every other call
 * is isolated: a throwing observer is counted and the next one still hears.
 */
export class OutboundChannel {
  // One holder per subscribe call: the same observer subscribed twice hears twice, unsubscribes once.
  private readonly observers = new Set<{ readonly observer: ProjectionObserver }>();
  /** Observers (or the sink's optional calls) that threw, and the last thing one said. */
  listenerFailures = 0;
  lastListenerFailure: string | undefined;

  constructor(private readonly sink: ProjectionSink | undefined) {}

  subscribe(observer: ProjectionObserver): () => void {
    const entry = { observer };
    this.observers.add(entry);
    return () => {
      this.observers.delete(entry);
    };
  }

  projection(projection: Projection): void {
    this.sink?.accept(projection);
    for (const { observer } of this.observers) if (observer.accept !== undefined) this.isolated(() => observer.accept!(projection));
  }

  commitTelemetry(event: CommitTelemetry): void {
    if (this.sink?.acceptCommitTelemetry !== undefined) this.isolated(() => this.sink!.acceptCommitTelemetry!(event));
    for (const { observer } of this.observers) if (observer.acceptCommitTelemetry !== undefined) this.isolated(() => observer.acceptCommitTelemetry!(event));
  }

  warning(warning: FoldWarning): void {
    if (this.sink?.acceptWarning !== undefined) this.isolated(() => this.sink!.acceptWarning!(warning));
    for (const { observer } of this.observers) if (observer.acceptWarning !== undefined) this.isolated(() => observer.acceptWarning!(warning));
  }

  usage(event: UsageTelemetry): void {
    if (this.sink?.acceptUsage !== undefined) this.isolated(() => this.sink!.acceptUsage!(event));
    for (const { observer } of this.observers) if (observer.acceptUsage !== undefined) this.isolated(() => observer.acceptUsage!(event));
  }

  action(event: ActionTelemetry): void {
    if (this.sink?.acceptAction !== undefined) this.isolated(() => this.sink!.acceptAction!(event));
    for (const { observer } of this.observers) if (observer.acceptAction !== undefined) this.isolated(() => observer.acceptAction!(event));
  }

  private isolated(call: () => void): void {
    // A host's logging must not fail the request, nor starve the next observer.
    try {
      call();
    } catch (error) {
      this.listenerFailures += 1;
      this.lastListenerFailure = error instanceof Error ? error.message : String(error);
    }
  }
}

/** Subscribe through a session's channel (the facade's `subscribe`). */
export function subscribeObserver(session: { readonly outbound: OutboundChannel }, observer: ProjectionObserver): () => void {
  return session.outbound.subscribe(observer);
}
