import type { CommitTelemetry, Projection, ProjectionSink } from '../../../ports/projection-sink.port.ts';

/**
 * A ProjectionSink that keeps every projection it is handed, for tests, the lab and the
 * attribution lens. Keeps the serialized prompt of each request, so gates can check docs/behaviour.md I1 on
 * the exact bytes a provider would have received.
 */
export class RecordingProjectionSink implements ProjectionSink {
  readonly specificationVersion = 'v1' as const;
  readonly projections: Projection[] = [];
  /** Every commit telemetry event, in the order the runtime told them. */
  readonly commitEvents: CommitTelemetry[] = [];

  accept(projection: Projection): void {
    this.projections.push(projection);
  }

  acceptCommitTelemetry(event: CommitTelemetry): void {
    this.commitEvents.push(event);
  }

  /** The wire form of request `n` (0-based): every message's bytes, one per line. */
  serialized(n: number): string {
    const projection = this.projections[n];
    if (projection === undefined) throw new RangeError(`no projection ${n}; recorded ${this.projections.length}`);
    return projection.messages.map((message) => message.bytes).join('\n');
  }
}
