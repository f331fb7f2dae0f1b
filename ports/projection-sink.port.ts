/**
 * ProjectionSink: the engine's one outbound channel. It receives every projection with its
 * ledger row (docs/behaviour.md B7.1), each commit's telemetry, and every warning as a coded record; a host
 * hands them on (Pi's events, an AI SDK callback) or records them (tests, the lab).
 * `FoldRuntime.subscribe` adds observers of the same shape on top of the configured sink.
 */

export type {
  ActionTelemetry,
  CommitTelemetry,
  CommitTelemetryV1,
  UsageTelemetry,
} from './engine-telemetry.ts';
export type { FoldWarning, FoldWarningCode } from './fold-warning.ts';
export type { LedgerRow, RewriteCause } from './ledger-row.ts';
export type { ProjectedMessage, SpilledToolCallArguments, SpillPointer } from './projected-message.ts';
export type { Projection } from './projection.ts';

import type { ActionTelemetry, CommitTelemetry, UsageTelemetry } from './engine-telemetry.ts';
import type { FoldWarning } from './fold-warning.ts';
import type { Projection } from './projection.ts';

export interface ProjectionSinkV1 {
  readonly specificationVersion: 'v1';
  /** Called once per request with the projection that will be sent. */
  accept(projection: Projection): void;
  /** Called when a commit lands and again when its request's usage is measured. Optional. */
  acceptCommitTelemetry?(event: CommitTelemetry): void;
  /** Called once for each warning a projection reports (the request still went out). Optional. */
  acceptWarning?(warning: FoldWarning): void;
  /** Called once per request with the provider's own counts, as the host reported them. Optional. */
  acceptUsage?(event: UsageTelemetry): void;
  /** Called after every agent action, answered or refused. Optional. */
  acceptAction?(event: ActionTelemetry): void;
}

/** An observer added with `FoldRuntime.subscribe`: any of the sink's calls, each optional. */
export type ProjectionObserver = Partial<Omit<ProjectionSinkV1, 'specificationVersion'>>;

export type ProjectionSink = ProjectionSinkV1;
