import type { ProjectionObserver, ProjectionSink } from '../../ports/projection-sink.port.ts';
import type {
  ActionTelemetry,
  CommitTelemetry,
  FoldWarning,
  Projection,
  UsageTelemetry,
} from '../../ports/shared-types.ts';

export type { ProjectionObserver } from '../../ports/projection-sink.port.ts';

/** The sink's optional calls: each goes to every listener that has it, and none may fail the request. */
type IsolatedCall = 'acceptCommitTelemetry' | 'acceptWarning' | 'acceptUsage' | 'acceptAction';
type EventOf<K extends IsolatedCall> = Parameters<NonNullable<ProjectionObserver[K]>>[0];

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
    for (const { observer } of this.observers)
      if (observer.accept !== undefined) this.isolated(() => observer.accept!(projection));
  }

  commitTelemetry(event: CommitTelemetry): void {
    this.broadcast('acceptCommitTelemetry', event);
  }

  warning(warning: FoldWarning): void {
    this.broadcast('acceptWarning', warning);
  }

  usage(event: UsageTelemetry): void {
    this.broadcast('acceptUsage', event);
  }

  action(event: ActionTelemetry): void {
    this.broadcast('acceptAction', event);
  }

  /** The sink first, then every observer that has the call, each isolated from the others. */
  private broadcast<K extends IsolatedCall>(call: K, event: EventOf<K>): void {
    this.deliver(this.sink, call, event);
    for (const { observer } of this.observers) this.deliver(observer, call, event);
  }

  private deliver<K extends IsolatedCall>(listener: ProjectionObserver | undefined, call: K, event: EventOf<K>): void {
    const method = listener?.[call] as ((this: ProjectionObserver, event: EventOf<K>) => void) | undefined;
    if (method !== undefined) this.isolated(() => method.call(listener!, event));
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
export function subscribeObserver(
  session: { readonly outbound: OutboundChannel },
  observer: ProjectionObserver,
): () => void {
  return session.outbound.subscribe(observer);
}
