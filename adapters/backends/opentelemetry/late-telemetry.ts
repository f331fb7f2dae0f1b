import type { Attributes } from '@opentelemetry/api';
import type { FoldWarning } from '../../../ports/fold-warning.ts';
import type {
  ActionTelemetry,
  CommitTelemetry,
  Projection,
  ProjectionSink,
  UsageTelemetry,
} from '../../../ports/projection-sink.port.ts';
import { type StoreDurationRecorder, storeDurationHistogram } from './instrument-fold-store.ts';
import type { OpenTelemetryApi } from './load-opentelemetry.ts';
import { OpenTelemetrySink } from './opentelemetry-sink.ts';

/**
 * OpenTelemetry for a session opened while `@opentelemetry/api` is still loading.
 *
 * Loading the API evaluates some seventy modules, tens of milliseconds (`npm run bench:pi`
 * measures it); a host that prompts as soon as pi-fold registers would otherwise wait that long
 * inside its first model request. Instead the session opens at once and what it reports meanwhile is held, then handed
 * to the API in order when it arrives, spans with the times their events happened: what the
 * exporters see is what an API loaded up front would have seen. When the API turns out not to
 * be installed, or its load fails, what was held is dropped (a failed load is then reported by
 * the next session that opens, as `createFoldRuntime` awaits the same load).
 */

/** Events held at most while the API loads; a load that never ends must not grow memory without end. */
const HELD_LIMIT = 10_000;

type HeldEvent =
  | { readonly call: 'accept'; readonly event: Projection; readonly at: number }
  | { readonly call: 'acceptUsage'; readonly event: UsageTelemetry; readonly at: number }
  | { readonly call: 'acceptCommitTelemetry'; readonly event: CommitTelemetry; readonly at: number }
  | { readonly call: 'acceptAction'; readonly event: ActionTelemetry; readonly at: number };

/** A ProjectionSink that hands everything to `inner` at once and to OpenTelemetry once the API has loaded. */
export class LateOpenTelemetrySink implements ProjectionSink {
  readonly specificationVersion = 'v1' as const;
  /** The API's sink once it arrived; null when there is none to report to. */
  private target: OpenTelemetrySink | null | undefined;
  private held: HeldEvent[] = [];

  constructor(
    pending: Promise<OpenTelemetryApi | undefined>,
    sessionId: string,
    private readonly inner?: ProjectionSink,
  ) {
    pending.then(
      (api) => this.arrived(api === undefined ? null : new OpenTelemetrySink(api, sessionId)),
      () => this.arrived(null),
    );
  }

  accept(projection: Projection): void {
    this.inner?.accept(projection);
    this.report({ call: 'accept', event: projection, at: wallClockMs() });
  }

  acceptUsage(event: UsageTelemetry): void {
    this.inner?.acceptUsage?.(event);
    this.report({ call: 'acceptUsage', event, at: wallClockMs() });
  }

  acceptCommitTelemetry(event: CommitTelemetry): void {
    this.inner?.acceptCommitTelemetry?.(event);
    this.report({ call: 'acceptCommitTelemetry', event, at: wallClockMs() });
  }

  acceptWarning(warning: FoldWarning): void {
    // OpenTelemetrySink reports no warnings of its own: they only go on.
    this.inner?.acceptWarning?.(warning);
  }

  acceptAction(event: ActionTelemetry): void {
    this.inner?.acceptAction?.(event);
    this.report({ call: 'acceptAction', event, at: wallClockMs() });
  }

  private report(held: HeldEvent): void {
    if (this.target === undefined) {
      if (this.held.length < HELD_LIMIT) this.held.push(held);
      return;
    }
    // Live events keep the sink's own clock (no `at`), as a sink built up front would.
    if (this.target !== null) deliver(this.target, held, false);
  }

  private arrived(target: OpenTelemetrySink | null): void {
    const held = this.held;
    this.held = [];
    this.target = target;
    if (target !== null) for (const event of held) deliver(target, event, true);
  }
}

/**
 * When a held event happened, on OpenTelemetry's own clock (the time origin plus the monotonic
 * clock, as its spans are stamped), not `Date.now()`: a host may stub that clock (the lab makes
 * it a counter so its runs repeat), and reading it here would move the host's own timestamps.
 */
function wallClockMs(): number {
  return performance.timeOrigin + performance.now();
}

function deliver(target: OpenTelemetrySink, held: HeldEvent, replay: boolean): void {
  const at = replay ? held.at : undefined;
  switch (held.call) {
    case 'accept':
      return target.accept(held.event, at);
    case 'acceptUsage':
      return target.acceptUsage(held.event, at);
    case 'acceptCommitTelemetry':
      return target.acceptCommitTelemetry(held.event, at);
    case 'acceptAction':
      return target.acceptAction(held.event, at);
  }
}

/**
 * A store-duration recorder for a session opened while the API loads: durations are held and
 * recorded in order once `pending` gives the API (dropped when it gives none).
 */
export function lateStoreDurations(pending: Promise<OpenTelemetryApi | undefined>): StoreDurationRecorder {
  let record: StoreDurationRecorder | null | undefined;
  let held: { readonly seconds: number; readonly attributes: Attributes }[] = [];
  const arrived = (recorder: StoreDurationRecorder | null) => {
    record = recorder;
    const waiting = held;
    held = [];
    if (recorder !== null) for (const { seconds, attributes } of waiting) recorder(seconds, attributes);
  };
  pending.then(
    (api) => arrived(api === undefined ? null : storeDurationHistogram(api)),
    () => arrived(null),
  );
  return (seconds, attributes) => {
    if (record === undefined) {
      if (held.length < HELD_LIMIT) held.push({ seconds, attributes });
    } else if (record !== null) record(seconds, attributes);
  };
}
