import { describe, expect, it, vi } from 'vitest';
import { LateOpenTelemetrySink } from '../../adapters/backends/opentelemetry/late-telemetry.ts';
import { RecordingProjectionSink } from '../../adapters/backends/projection-recorder/recording-projection-sink.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import type { ProjectionSink } from '../../ports/projection-sink.port.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';

/**
 * The late OpenTelemetry sink stamps what it holds without reading `Date.now()`. A host may
 * stub that clock: the lab makes it a counter so that its runs repeat, and Pi's entry
 * timestamps reach the wire through fold ids and hashes. A sink that read it once per event
 * moved the lab's full-preset fold arm (from $9.35 to $9.34, 3 folded bytes) without changing
 * any decision of its own.
 */
describe('the late OpenTelemetry sink and the host clock', () => {
  it('reads Date.now no more often than the engine alone, while it holds events and after the API arrives', async () => {
    let arrive!: (api: undefined) => void;
    const pending = new Promise<undefined>((resolve) => (arrive = resolve));
    const late = await clockReads(
      new LateOpenTelemetrySink(pending, 'clock-session', new RecordingProjectionSink()),
      async () => {
        arrive(undefined);
        await pending;
      },
    );
    const alone = await clockReads(new RecordingProjectionSink(), async () => undefined);
    expect(alone.first, 'the engine reads the clock itself').toBeGreaterThan(0);
    expect(late).toEqual(alone);
  });
});

/** Date.now calls of 20 requests, then of 20 more after `between`, through `sink`. */
async function clockReads(
  sink: ProjectionSink,
  between: () => Promise<void>,
): Promise<{ first: number; second: number }> {
  const runtime = await FoldRuntime.open({
    sessionId: 'clock-session',
    settings: resolveSettings({ providerInputBudget: 30_000 }),
    foldStore: new MemoryFoldStore(),
    costModel: createCharsCostModel(),
    projectionSink: sink,
  });
  const session = new SyntheticSession({ seed: 5, resultChars: [3_000, 9_000] });
  const clock = vi.spyOn(Date, 'now');
  const twentyRequests = async () => {
    clock.mockClear();
    for (let step = 0; step < 20; step += 1) {
      session.step();
      const result = await runtime.project(session.entries);
      runtime.recordUsage({ input: Math.ceil(result.ledger.totalChars / 4), cacheRead: 0, cacheWrite: 0, output: 50 });
    }
    return clock.mock.calls.length;
  };
  try {
    const first = await twentyRequests();
    await between();
    const second = await twentyRequests();
    return { first, second };
  } finally {
    clock.mockRestore();
    await runtime.dispose();
  }
}
