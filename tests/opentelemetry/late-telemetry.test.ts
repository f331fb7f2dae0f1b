import * as api from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { instrumentFoldStore, timedFoldStore } from '../../adapters/backends/opentelemetry/instrument-fold-store.ts';
import { LateOpenTelemetrySink, lateStoreDurations } from '../../adapters/backends/opentelemetry/late-telemetry.ts';
import { OpenTelemetrySink } from '../../adapters/backends/opentelemetry/opentelemetry-sink.ts';
import { METRICS } from '../../adapters/backends/opentelemetry/telemetry-names.ts';
import { RecordingProjectionSink } from '../../adapters/backends/projection-recorder/recording-projection-sink.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { ProjectionSink } from '../../ports/projection-sink.port.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';

const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const spanExporter = new InMemorySpanExporter();

beforeAll(() => {
  api.metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  api.trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] }),
  );
});

afterAll(() => {
  api.metrics.disable();
  api.trace.disable();
});

/** The same session, step for step, into `sink`: requests with usage, commits, and a peek and a refused action. */
async function drive(
  sessionId: string,
  sink: ProjectionSink,
  foldStore: FoldStore = new MemoryFoldStore(),
): Promise<void> {
  const runtime = await FoldRuntime.open({
    sessionId,
    settings: resolveSettings({ providerInputBudget: 30_000 }),
    foldStore,
    costModel: createCharsCostModel(),
    projectionSink: sink,
  });
  const session = new SyntheticSession({ seed: 21, resultChars: [3_000, 9_000] });
  for (let step = 0; step < 40; step += 1) {
    session.step();
    const result = await runtime.project(session.entries);
    runtime.recordUsage({ input: Math.ceil(result.ledger.totalChars / 4), cacheRead: 0, cacheWrite: 0, output: 50 });
  }
  await runtime.act({ action: 'peek', id: runtime.view.visibleFolds[0]!.record.id });
  await runtime.act({ action: 'peek', id: 'fold_000000000000000000000000' }).catch(() => undefined);
  expect(runtime.view.memory.counters.commits, 'the session commits').toBeGreaterThan(0);
  await runtime.dispose();
}

const millis = (time: api.HrTime) => time[0] * 1000 + time[1] / 1e6;
const described = (spans: readonly ReadableSpan[]) =>
  spans
    .map(
      (span) =>
        `${span.name} ${JSON.stringify({ ...span.attributes, 'gen_ai.conversation.id': undefined })} ${span.status.code}`,
    )
    .sort();

describe('a session opened while @opentelemetry/api loads reports everything once it has loaded', () => {
  it('holds every event, then hands it over with its own time: the same spans and metrics as a sink built with the API', async () => {
    let arrive!: (loaded: typeof api) => void;
    const pending = new Promise<typeof api>((resolve) => (arrive = resolve));
    const inner = new RecordingProjectionSink();
    await drive(
      'late-session',
      new LateOpenTelemetrySink(pending, 'late-session', inner),
      timedFoldStore(new MemoryFoldStore(), lateStoreDurations(pending)),
    );
    const endedAt = Date.now();
    expect(inner.projections.length, 'the inner sink hears at once').toBe(40);
    expect(spanExporter.getFinishedSpans(), 'nothing reaches the API before it loaded').toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 30));
    arrive(api);
    await Promise.resolve();
    await Promise.resolve();
    const late = spanExporter
      .getFinishedSpans()
      .filter((span) => span.attributes['gen_ai.conversation.id'] === 'late-session');
    expect(late.length).toBeGreaterThan(40);
    for (const span of late) {
      expect(millis(span.startTime), span.name).toBeLessThanOrEqual(endedAt + 1);
      expect(millis(span.endTime), span.name).toBeLessThanOrEqual(endedAt + 1);
    }
    await reader.forceFlush();
    const lateMetrics = exportedPoints((value) => value);

    spanExporter.reset();
    await drive(
      'direct-session',
      new OpenTelemetrySink(api, 'direct-session', new RecordingProjectionSink()),
      instrumentFoldStore(new MemoryFoldStore(), api),
    );
    const direct = spanExporter
      .getFinishedSpans()
      .filter((span) => span.attributes['gen_ai.conversation.id'] === 'direct-session');
    expect(described(late)).toEqual(described(direct));
    await reader.forceFlush();
    // Cumulative: after the direct session every point holds twice the late session's value.
    const doubled = exportedPoints(halve);
    expect(doubled).toBe(lateMetrics);
  });

  it('drops what it held when the API is not installed, and the inner sink still hears everything', async () => {
    const inner = new RecordingProjectionSink();
    spanExporter.reset();
    await drive('absent-session', new LateOpenTelemetrySink(Promise.resolve(undefined), 'absent-session', inner));
    expect(inner.projections).toHaveLength(40);
    expect(
      spanExporter.getFinishedSpans().filter((span) => span.attributes['gen_ai.conversation.id'] === 'absent-session'),
    ).toHaveLength(0);
  });
});

/**
 * Every exported point as text, its value passed through `map`. Store durations are wall-clock
 * times, different in every run, so only their counts are kept.
 */
function exportedPoints(map: (value: unknown) => unknown): string {
  const metrics = metricExporter
    .getMetrics()
    .at(-1)!
    .scopeMetrics.flatMap((scope) => scope.metrics);
  return JSON.stringify(
    metrics.map((metric) => [
      metric.descriptor.name,
      metric.dataPoints.map((point) => [
        point.attributes,
        metric.descriptor.name === METRICS.storeDuration
          ? { count: (map(point.value) as { count: number }).count }
          : map(point.value),
      ]),
    ]),
  );
}

/** Half of a counter's or histogram's cumulative value (count, sum and bucket counts; min and max stay). */
function halve(value: unknown): unknown {
  if (typeof value === 'number') return value / 2;
  const histogram = value as {
    count: number;
    sum: number;
    buckets: { boundaries: number[]; counts: number[] };
    min?: number;
    max?: number;
  };
  return {
    ...histogram,
    count: histogram.count / 2,
    sum: histogram.sum / 2,
    buckets: { boundaries: histogram.buckets.boundaries, counts: histogram.buckets.counts.map((count) => count / 2) },
  };
}
