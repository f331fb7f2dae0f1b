import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldError } from '../../core/fold-error.ts';
import { FaultyFoldStore } from '../../testing/faulty-stores.ts';
import { assistantEntry, SyntheticSession, toolResultEntry, userEntry } from '../../testing/synthetic-session.ts';
import { openRuntime, reportUncachedUsage } from '../support/drive-session.ts';

/** Project until the runtime refuses; returns the refusal. */
async function driveUntilRefused(
  runtime: Awaited<ReturnType<typeof openRuntime>>['runtime'],
  session: SyntheticSession,
): Promise<FoldError> {
  for (let step = 0; step < 200; step += 1) {
    session.step();
    try {
      const result = await runtime.project(session.entries);
      reportUncachedUsage(runtime, result.ledger);
    } catch (error) {
      if (FoldError.isInstance(error)) return error;
      throw error;
    }
  }
  throw new Error('the runtime never refused a request');
}

describe('I6 refusals say why', () => {
  it('names the store when it refused the commit that would have made room', async () => {
    const store = new FaultyFoldStore(new MemoryFoldStore());
    const { runtime } = await openRuntime({ store });
    // The store takes nothing from the start: no commit can land, the window only grows.
    store.faults.refuse(['blob', 'fold', 'state']);
    const refusal = await driveUntilRefused(runtime, new SyntheticSession({ seed: 8, resultChars: [4000, 12_000] }));
    expect(refusal.code).toBe('BUDGET.EXCEEDED');
    expect(refusal.message).toContain('store refused the commit that would have made room');
    expect(refusal.details).toMatchObject({ commitRefusedByStore: true });
    // The outage is what to wait out: no pin is at fault.
    expect(refusal.details?.remedy).toMatch(/once the memory store accepts writes/);
    expect(refusal.details?.remedy).not.toMatch(/unpin/i);
  });

  it('says nothing can make room when the newest, open unit alone fills the window', async () => {
    const { runtime } = await openRuntime({ settings: { providerInputBudget: 5_000 } });
    // Two results each under the spill threshold (a single 30 KB one would be spilled, docs/behaviour.md B6.2).
    const entries = [
      userEntry('u1', 'start'),
      assistantEntry('a1', 'reading', [
        { id: 'c1', name: 'read', arguments: { path: 'x' } },
        { id: 'c2', name: 'read', arguments: { path: 'z' } },
      ]),
      toolResultEntry('r1', 'c1', 'read', 'y'.repeat(15_000)),
      toolResultEntry('r2', 'c2', 'read', 'w'.repeat(15_000)),
    ];
    await runtime.project(entries.slice(0, 1));
    const refusal = await runtime.project(entries).catch((caught: unknown) => caught);
    expect(FoldError.isInstance(refusal) && refusal.code).toBe('BUDGET.EXCEEDED');
    const message = (refusal as FoldError).message;
    expect(message).toContain('no lossless fold can make room');
    // It names what is there, the open batch, and nothing that is not: no pins, nothing protected.
    expect(message).toMatch(/the window holds open units \(the newest turn, or a tool batch still waiting/);
    expect(message).not.toMatch(/pinned|protected/);
    expect((refusal as FoldError).details).toMatchObject({
      commitRefusedByStore: false,
      remedy: 'start a new session, or give it a larger budget (providerInputBudget)',
      windowChars: { pinned: 0, protected: 0, strayResults: 0 },
    });
    expect(((refusal as FoldError).details.windowChars as { open: number }).open).toBeGreaterThan(30_000);
  });

  it('names the pinned entries it holds, and only then suggests unpinning', async () => {
    const { runtime } = await openRuntime({ settings: { providerInputBudget: 8_000 } });
    // Results each under the spill threshold, so the window carries them whole.
    const entries = [
      userEntry('u1', 'z'.repeat(12_000)),
      assistantEntry('a1', 'reading', [
        { id: 'c1', name: 'read', arguments: { path: 'x' } },
        { id: 'c2', name: 'read', arguments: { path: 'z' } },
      ]),
      toolResultEntry('r1', 'c1', 'read', 'y'.repeat(15_000)),
      toolResultEntry('r2', 'c2', 'read', 'w'.repeat(15_000)),
    ];
    reportUncachedUsage(runtime, (await runtime.project(entries.slice(0, 1))).ledger);
    await runtime.act({ action: 'pin', ids: ['u1'] });
    const refusal = await runtime.project(entries).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(FoldError.isInstance(refusal) && refusal.code).toBe('BUDGET.EXCEEDED');
    const { message, details } = refusal as FoldError;
    expect(message).toMatch(/the window holds .*pinned entries \(\d+ chars\)/);
    expect(message).not.toMatch(/protected/);
    expect(details).toMatchObject({ remedy: 'unpin entries, or start a new session' });
    expect((details.windowChars as { pinned: number }).pinned).toBeGreaterThan(12_000);
  });
});
