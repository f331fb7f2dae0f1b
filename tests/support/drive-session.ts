import { RecordingProjectionSink } from '../../adapters/backends/projection-recorder/recording-projection-sink.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';

export interface DrivenSession {
  readonly runtime: FoldRuntime;
  readonly sink: RecordingProjectionSink;
  readonly session: SyntheticSession;
  readonly store: FoldStore;
}

/** Open a runtime on a memory store with a recording sink. */
export async function openRuntime(
  options: { settings?: Record<string, unknown>; store?: FoldStore; sessionId?: string } = {},
) {
  const sink = new RecordingProjectionSink();
  const store = options.store ?? new MemoryFoldStore();
  const runtime = await FoldRuntime.open({
    sessionId: options.sessionId ?? 'session-1',
    settings: resolveSettings({ providerInputBudget: 60_000, ...options.settings }),
    foldStore: store,
    costModel: createCharsCostModel(),
    projectionSink: sink,
  });
  return { runtime, sink, store };
}

/** A provider's prompt count for a projection: a tokenizer slightly denser than chars/4. */
export function providerTokens(chars: number): number {
  return Math.ceil(chars / 3.6) + 400;
}

/** Report a request's usage as a provider without a cache would: the whole prompt billed fresh. */
export function reportUncachedUsage(
  runtime: Pick<FoldRuntime, 'recordUsage'>,
  ledger: { readonly totalChars: number },
  output = 100,
): void {
  runtime.recordUsage({ input: providerTokens(ledger.totalChars), cacheRead: 0, cacheWrite: 0, output });
}

/** Grow a synthetic session step by step, projecting before each model request like a host. */
export async function driveSession(options: {
  seed: number;
  steps: number;
  settings?: Record<string, unknown>;
  store?: FoldStore;
  resultChars?: readonly [number, number];
}): Promise<DrivenSession> {
  const { runtime, sink, store } = await openRuntime({
    ...(options.settings ? { settings: options.settings } : {}),
    ...(options.store ? { store: options.store } : {}),
  });
  const session = new SyntheticSession({ seed: options.seed, resultChars: options.resultChars ?? [3000, 16_000] });
  for (let step = 0; step < options.steps; step += 1) {
    session.step();
    const result = await runtime.project(session.entries);
    const prompt = providerTokens(result.ledger.totalChars);
    const previous = sink.projections[sink.projections.length - 2];
    const cached =
      previous === undefined
        ? 0
        : Math.min(prompt, providerTokens(result.ledger.causes.length === 0 ? previous.ledger.totalChars : 0));
    runtime.recordUsage({ input: prompt - cached, cacheRead: cached, cacheWrite: 0, output: 200 });
  }
  return { runtime, sink, session, store };
}
