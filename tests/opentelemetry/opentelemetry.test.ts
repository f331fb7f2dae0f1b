import type { ExtensionAPI } from '@mariozechner/pi-coding-agent';
import { metrics, trace } from '@opentelemetry/api';
import {
  AggregationTemporality,
  InMemoryMetricExporter,
  MeterProvider,
  PeriodicExportingMetricReader,
  type ResourceMetrics,
} from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { registerPiFold } from '../../adapters/hosts/pi/register-pi-fold.ts';
import { openScriptedPi, settle } from '../../testing/pi/scripted-pi.ts';
import { readLoop } from '../../testing/vercel-ai/scripted-model.ts';
import { type LoopRun, runLoop } from '../vercel-ai/support/run-loop.ts';

const metricExporter = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: metricExporter, exportIntervalMillis: 3_600_000 });
const meterProvider = new MeterProvider({ readers: [reader] });
const spanExporter = new InMemorySpanExporter();
const tracerProvider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spanExporter)] });

/** Every data point of one metric across the export, with its attributes. */
function points(
  name: string,
): { attributes: Record<string, unknown>; value: { sum?: number; count?: number } | number }[] {
  const exported: ResourceMetrics[] = metricExporter.getMetrics();
  const latest = exported[exported.length - 1]!;
  const found = latest.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((metric) => metric.descriptor.name === name);
  return found.flatMap((metric) =>
    metric.dataPoints.map((point) => ({ attributes: point.attributes, value: point.value as never })),
  );
}
const histogramSum = (name: string, filter: (attributes: Record<string, unknown>) => boolean = () => true) =>
  points(name)
    .filter((point) => filter(point.attributes))
    .reduce((sum, point) => sum + ((point.value as { sum?: number }).sum ?? 0), 0);
const histogramCount = (name: string, filter: (attributes: Record<string, unknown>) => boolean = () => true) =>
  points(name)
    .filter((point) => filter(point.attributes))
    .reduce((sum, point) => sum + ((point.value as { count?: number }).count ?? 0), 0);
const counterSum = (name: string, filter: (attributes: Record<string, unknown>) => boolean = () => true) =>
  points(name)
    .filter((point) => filter(point.attributes))
    .reduce((sum, point) => sum + (point.value as number), 0);

let run: LoopRun;

beforeAll(async () => {
  metrics.setGlobalMeterProvider(meterProvider);
  trace.setGlobalTracerProvider(tracerProvider);
  run = await runLoop({
    kind: 'generateText',
    script: readLoop(40),
    maxSteps: 45,
    folding: { sessionId: 'otel-session', settings: { providerInputBudget: 30_000 } },
  });
  await run.folding.runtime.act({ action: 'status' });
  await run.folding.runtime.act({ action: 'peek', id: run.folding.runtime.view.visibleFolds[0]!.record.id });
  await run.folding.runtime.act({ action: 'peek', id: 'fold_000000000000000000000000' }).catch(() => undefined);
  await run.folding.runtime.act({ action: 'search', pattern: 'module_2.ts' });
  await reader.forceFlush();
}, 120_000);

afterAll(async () => {
  await run?.folding.dispose();
  metrics.disable();
  trace.disable();
});

describe('OpenTelemetry through @opentelemetry/api (SDK in-memory exporters)', () => {
  it('reports every request: tokens sent, the cache read the provider reported, occupancy', () => {
    const ledger = run.folding.runtime.view.ledger;
    expect(counterSum('pi_fold.requests')).toBe(ledger.length);
    expect(counterSum('pi_fold.requests', (attributes) => attributes['pi_fold.rewrite.causes'] !== 'append')).toBe(
      ledger.filter((row) => row.causes.length > 0).length,
    );
    expect(histogramSum('pi_fold.request.prompt_tokens')).toBe(
      ledger.reduce((sum, row) => sum + row.estimatedTokens, 0),
    );
    expect(histogramSum('pi_fold.request.cache_read_tokens')).toBe(
      run.model.calls.reduce((sum, call) => sum + call.cacheRead, 0),
    );
    expect(histogramSum('gen_ai.client.token.usage', (attributes) => attributes['gen_ai.token.type'] === 'input')).toBe(
      run.model.calls.reduce((sum, call) => sum + call.tokens, 0),
    );
    expect(histogramCount('pi_fold.request.occupancy')).toBe(ledger.length);
  });

  it('reports every commit with its folds, tokens freed and prefix rewritten, and a span per commit and request', () => {
    const commits = run.folding.runtime.view.ledger.filter((row) => row.foldsLanded > 0);
    expect(commits.length).toBeGreaterThan(0);
    expect(counterSum('pi_fold.commits')).toBe(commits.length);
    expect(histogramSum('pi_fold.commit.folds')).toBe(commits.reduce((sum, row) => sum + row.foldsLanded, 0));
    expect(histogramSum('pi_fold.commit.tokens_freed')).toBe(
      commits.reduce((sum, row) => sum + Math.max(0, row.preCommitTokens - row.estimatedTokens), 0),
    );
    const spans = spanExporter.getFinishedSpans();
    expect(spans.filter((span) => span.name === 'pi_fold.commit.landed').length).toBe(commits.length);
    const requests = spans.filter((span) => span.name === 'pi_fold.request');
    expect(requests.length).toBe(run.folding.runtime.view.ledger.length);
    for (const span of requests) expect(span.attributes['gen_ai.conversation.id']).toBe('otel-session');
    expect(
      requests.filter((span) => span.attributes['gen_ai.usage.cache_read.input_tokens'] !== undefined).length,
    ).toBe(run.model.calls.length);
  });

  it('counts actions by name and outcome, with the bytes handed back', () => {
    expect(
      counterSum(
        'pi_fold.actions',
        (attributes) => attributes['pi_fold.action'] === 'peek' && attributes['pi_fold.action.outcome'] === 'answered',
      ),
    ).toBeGreaterThanOrEqual(1);
    expect(
      counterSum(
        'pi_fold.actions',
        (attributes) =>
          attributes['pi_fold.action'] === 'peek' &&
          attributes['pi_fold.action.outcome'] === 'refused' &&
          attributes['error.type'] === 'ACTION.UNKNOWN_ID',
      ),
    ).toBe(1);
    expect(counterSum('pi_fold.actions', (attributes) => attributes['pi_fold.action'] === 'search')).toBe(1);
    expect(
      histogramSum('pi_fold.action.answer_bytes', (attributes) => attributes['pi_fold.action'] === 'search'),
    ).toBeGreaterThan(0);
    expect(
      spanExporter.getFinishedSpans().some((span) => span.name === 'pi_fold.action peek' && span.status.code === 2),
    ).toBe(true);
  });

  it('a Pi session reports a span per request, and none with openTelemetry: false', async () => {
    const requestSpans = (conversation: string) =>
      spanExporter
        .getFinishedSpans()
        .filter((span) => span.name === 'pi_fold.request' && span.attributes['gen_ai.conversation.id'] === conversation)
        .length;
    for (const openTelemetry of [undefined, false] as const) {
      const pi = await openScriptedPi({
        script: (request) =>
          request.index >= 3
            ? { kind: 'text', text: 'done' }
            : { kind: 'tools', calls: [{ name: 'fetch_blob', arguments: { seed: request.index, size: 2_000 } }] },
        fold: {
          foldStore: new MemoryFoldStore(),
          settingsPath: '/nonexistent/pi-fold/settings.json',
          ...(openTelemetry === undefined ? {} : { openTelemetry }),
        },
      });
      await pi.session.prompt('Read three blobs.');
      await settle(pi.session);
      expect(pi.errors).toEqual([]);
      expect(pi.ledger.length).toBe(4);
      expect(requestSpans(pi.sessionManager.getSessionId()), `openTelemetry: ${String(openTelemetry)}`).toBe(
        openTelemetry === false ? 0 : pi.ledger.length,
      );
      pi.session.dispose();
    }
  }, 60_000);

  it('an openTelemetry option that is not true or false is refused by name, before pi-fold registers anything', () => {
    let registered = 0;
    const count = () => void (registered += 1);
    const pi = {
      on: count,
      registerTool: count,
      registerCommand: count,
      getAllTools: () => [],
      getActiveTools: () => [],
    } as unknown as ExtensionAPI;
    expect(() => registerPiFold(pi, { openTelemetry: 'false' as never })).toThrow(
      /SETTINGS.INVALID: registerPiFold: openTelemetry must be true or false, got the string "false"/,
    );
    expect(registered).toBe(0);
  });

  it('times store operations by name', () => {
    for (const operation of ['putBlob', 'putFold', 'saveState', 'getBlob']) {
      expect(
        histogramCount(
          'pi_fold.store.duration',
          (attributes) =>
            attributes['pi_fold.store.operation'] === operation && attributes['pi_fold.store.name'] === 'memory',
        ),
        operation,
      ).toBeGreaterThan(0);
    }
  });
});
