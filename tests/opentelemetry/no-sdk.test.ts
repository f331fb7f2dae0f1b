import * as api from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, describe, expect, it } from 'vitest';
import { OpenTelemetrySink } from '../../adapters/backends/opentelemetry/opentelemetry-sink.ts';
import { METRICS } from '../../adapters/backends/opentelemetry/telemetry-names.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';

/**
 * `@opentelemetry/api` installed without an SDK (a library pulled it in): the sink skips the
 * spans and metrics nobody records, and still reports from the moment a host registers one.
 * Each test file runs in its own module scope, so no provider is registered here at first.
 */

async function openRuntime(sessionId: string, sink: OpenTelemetrySink): Promise<FoldRuntime> {
  return FoldRuntime.open({
    sessionId,
    settings: resolveSettings({ providerInputBudget: 30_000 }),
    foldStore: new MemoryFoldStore(),
    costModel: createCharsCostModel(),
    projectionSink: sink,
  });
}

async function requests(runtime: FoldRuntime, session: SyntheticSession, count: number): Promise<void> {
  for (let step = 0; step < count; step += 1) {
    session.step();
    const result = await runtime.project(session.entries);
    runtime.recordUsage({ input: Math.ceil(result.ledger.totalChars / 4), cacheRead: 0, cacheWrite: 0, output: 50 });
  }
}

afterAll(() => {
  api.metrics.disable();
  api.trace.disable();
});

describe('OpenTelemetry API without an SDK', () => {
  it('reports no span until a tracer provider is registered, then one per request from there on', async () => {
    const runtime = await openRuntime('no-sdk-yet', new OpenTelemetrySink(api, 'no-sdk-yet'));
    const session = new SyntheticSession({ seed: 5, resultChars: [2_000, 4_000] });
    await requests(runtime, session, 5);
    const exporter = new InMemorySpanExporter();
    api.trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }));
    await requests(runtime, session, 5);
    const spans = exporter.getFinishedSpans().filter((span) => span.name === 'pi_fold.request');
    expect(spans.map((span) => span.attributes['pi_fold.request'])).toEqual([6, 7, 8, 9, 10]);
    for (const span of spans) {
      expect(span.attributes['gen_ai.conversation.id']).toBe('no-sdk-yet');
      expect(span.attributes['gen_ai.usage.input_tokens']).toBeGreaterThan(0);
    }
    await runtime.dispose();
  });

  it('a sink built once a meter provider is registered records every request', async () => {
    const exporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
    const reader = new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: 3_600_000 });
    api.metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    const runtime = await openRuntime('with-meter', new OpenTelemetrySink(api, 'with-meter'));
    await requests(runtime, new SyntheticSession({ seed: 6, resultChars: [2_000, 4_000] }), 7);
    await reader.forceFlush();
    const requestPoints = exporter
      .getMetrics()
      .at(-1)!
      .scopeMetrics.flatMap((scope) => scope.metrics)
      .filter((metric) => metric.descriptor.name === METRICS.requests)
      .flatMap((metric) => metric.dataPoints.map((point) => point.value as number));
    expect(requestPoints.reduce((sum, value) => sum + value, 0)).toBe(7);
    await runtime.dispose();
  });
});
