import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createFoldRuntime, type FoldRuntimeOptions } from '../../composition/create-fold-runtime.ts';
import { createStoreScope } from '../../composition/store-scope.ts';
import type { StatusReport } from '../../core/actions/status-action.ts';
import type { EngineState } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { providerTokens } from '../support/drive-session.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

const scratch = await scratchDirectory('reopened-session');
afterAll(() => removeScratch(scratch), 120_000);

/** Where one session is opened, twice: the same options reach the same stored session. */
interface Backend {
  readonly name: string;
  readonly location: () => Promise<{ options: Omit<FoldRuntimeOptions, 'sessionId'>; close: () => Promise<void> }>;
}

const BACKENDS: readonly Backend[] = [
  {
    name: 'fs',
    location: async () => ({
      options: { store: 'fs', storeRoot: join(scratch, `fs-${Math.random().toString(16).slice(2)}`) },
      close: async () => undefined,
    }),
  },
  {
    name: 'sqlite',
    location: async () => ({
      options: { store: 'sqlite', sqlitePath: join(scratch, `${Math.random().toString(16).slice(2)}.sqlite`) },
      close: async () => undefined,
    }),
  },
  {
    // Pi's sessions that it keeps only in memory: one memory scope outlives each session's runtime.
    name: 'memory scope',
    location: async () => {
      const scope = await createStoreScope({ store: 'memory' });
      return { options: { scope }, close: () => scope.dispose() };
    },
  },
];

const WINDOW = 70_000;
/** The window less its output reservation (core/pricing/budget.ts). */
const WINDOW_BUDGET = 63_000;

async function status(runtime: { act(request: unknown): Promise<{ text: string; data: unknown }> }) {
  const answer = await runtime.act({ action: 'status' });
  return { text: answer.text, report: answer.data as StatusReport };
}

/** Drive `steps` requests with the model's window as the only budget source (default settings). */
async function drive(
  runtime: Awaited<ReturnType<typeof createFoldRuntime>>['runtime'],
  session: SyntheticSession,
  steps: number,
  contextWindow: number,
): Promise<void> {
  for (let step = 0; step < steps; step += 1) {
    session.step();
    const result = await runtime.project(session.entries, { contextWindow });
    runtime.recordUsage({ input: providerTokens(result.ledger.totalChars), cacheRead: 0, cacheWrite: 0, output: 80 });
  }
}

describe.each(BACKENDS)('a session reopened on the $name store knows what it knew', (backend) => {
  test('its budget from the last request’s window, and every counter and log row of its last request', async () => {
    const { options, close } = await backend.location();
    const sessionId = `reopened-${Math.random().toString(16).slice(2)}`;
    const session = new SyntheticSession({ seed: 11, resultChars: [2_000, 7_000] });
    const first = await createFoldRuntime({ sessionId, ...options });
    await drive(first.runtime, session, 40, WINDOW);
    const before = await status(first.runtime);
    expect(before.text).toMatch(new RegExp(`^budget ${WINDOW_BUDGET} tokens · occupancy [\\d.]+%`));
    const counters = { ...first.runtime.view.memory.counters };
    expect(counters.requests).toBe(40);
    expect(counters.commits).toBeGreaterThan(0);
    const calibration = first.runtime.view.estimator.calibration();
    const lastRow = first.runtime.view.ledger.at(-1)!;
    await first.dispose();

    const second = await createFoldRuntime({ sessionId, ...options });
    const after = await status(second.runtime);
    expect(after.report.budgetTokens).toBe(WINDOW_BUDGET);
    expect(after.report.budgetSource).toBe('last-request-context');
    expect(after.text).toMatch(
      new RegExp(
        `^budget ${WINDOW_BUDGET} tokens \\(from the last request's context window\\) · occupancy unknown \\(no request yet\\)`,
      ),
    );
    // Counters and calibration come back exactly as the closed session left them, its last request included.
    expect(second.runtime.view.memory.counters).toEqual(counters);
    expect(after.text).toContain(
      `requests ${counters.requests} · pure appends ${counters.pureAppends} · rewrites ${counters.rewrites}`,
    );
    expect(second.runtime.view.estimator.calibration()).toEqual(calibration);
    const backing = second.ports.backingFoldStore;
    const rows = (await backing.readRequestLog!(sessionId)).filter((row) => row.kind === 'request');
    expect(rows).toHaveLength(counters.requests);
    expect(rows.at(-1)).toMatchObject({ request: lastRow.request, totalChars: lastRow.totalChars });

    // A request's own context replaces the stored one, and that is what the next reopen knows.
    await drive(second.runtime, session, 1, 100_000);
    expect((await status(second.runtime)).text).toMatch(/^budget 90000 tokens · occupancy [\d.]+%/);
    await second.dispose();
    const third = await createFoldRuntime({ sessionId, ...options });
    expect((await status(third.runtime)).report.budgetTokens).toBe(90_000);
    expect(third.runtime.view.memory.counters.requests).toBe(41);
    await third.dispose();
    await close();
  }, 120_000);

  test('a session opened and closed without a change writes no state', async () => {
    const { options, close } = await backend.location();
    const sessionId = `untouched-${Math.random().toString(16).slice(2)}`;
    const session = new SyntheticSession({ seed: 3, resultChars: [2_000, 4_000] });
    const first = await createFoldRuntime({ sessionId, ...options });
    await drive(first.runtime, session, 6, WINDOW);
    await first.dispose();
    const second = await createFoldRuntime({ sessionId, ...options });
    const revision = (await second.ports.backingFoldStore.loadState(sessionId))!.revision;
    await status(second.runtime);
    await second.dispose();
    const third = await createFoldRuntime({ sessionId, ...options });
    expect((await third.ports.backingFoldStore.loadState(sessionId))!.revision).toBe(revision);
    await third.dispose();
    await close();
  }, 120_000);
});

/** A state as the release before `requestContext` wrote it (schema version 1, no such field). */
function stateOfTheOldShape(sessionId: string): EngineState {
  return {
    schemaVersion: 1,
    sessionId,
    revision: 3,
    foldIds: [],
    expanded: [],
    marks: [],
    pins: [],
    holds: [],
    inserts: [],
    ephemeralPeeks: [],
    calibration: [{ chars: 40_000, tokens: 10_000 }],
    counters: {
      requests: 5,
      pureAppends: 5,
      rewrites: 0,
      unattributedRewrites: 0,
      providerCacheMisses: 0,
      commits: 0,
      foldsLanded: 0,
    },
    epoch: 0,
    noticeShownSinceRewrite: false,
    spill: { thresholdBytes: 12_288, keepBytes: 2_048 },
  };
}

describe.each(BACKENDS)('a state written before the request context was kept, on the $name store', (backend) => {
  test('still reads, and gains the context at its next request', async () => {
    const { options, close } = await backend.location();
    const sessionId = `old-shape-${Math.random().toString(16).slice(2)}`;
    const writer = await createFoldRuntime({ sessionId: `${sessionId}-writer`, ...options });
    const store: FoldStore = writer.ports.backingFoldStore;
    await store.saveState(sessionId, stateOfTheOldShape(sessionId));
    await writer.dispose();

    const reopened = await createFoldRuntime({ sessionId, ...options });
    const before = await status(reopened.runtime);
    // Nothing says what the old session's budget was: it stays unknown, as before.
    expect(before.report.budgetTokens).toBeNull();
    expect(before.report.counters).toMatchObject({ requests: 5 });
    const session = new SyntheticSession({ seed: 4, resultChars: [1_000, 2_000] });
    await drive(reopened.runtime, session, 1, WINDOW);
    await reopened.dispose();
    const stored = await (async () => {
      const again = await createFoldRuntime({ sessionId, ...options });
      const state = await again.ports.backingFoldStore.loadState(sessionId);
      await again.dispose();
      return state!;
    })();
    expect(stored.schemaVersion).toBe(1);
    expect(stored.requestContext).toEqual({ contextWindow: WINDOW });
    expect(stored.counters.requests).toBe(6);
    await close();
  }, 120_000);

  test('a stored request context that this runtime did not write is refused by name', async () => {
    const { options, close } = await backend.location();
    const sessionId = `bad-context-${Math.random().toString(16).slice(2)}`;
    const writer = await createFoldRuntime({ sessionId: `${sessionId}-writer`, ...options });
    const store: FoldStore = writer.ports.backingFoldStore;
    const bad = { ...stateOfTheOldShape(sessionId), requestContext: { contextWindow: 'large' } };
    await store.saveState(sessionId, bad as unknown as EngineState);
    await writer.dispose();
    await expect(createFoldRuntime({ sessionId, ...options })).rejects.toMatchObject({
      code: 'STATE.CORRUPT',
      message: expect.stringContaining('requestContext'),
    });
    await close();
  }, 120_000);
});
