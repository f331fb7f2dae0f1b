import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import { FaultyFoldStore } from '../../testing/faulty-stores.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { openRuntime, providerTokens } from '../support/drive-session.ts';

/** Project step by step until `until` holds for a request's result; the result sees its warning codes and folds landed. */
async function driveUntil(
  runtime: FoldRuntime,
  session: SyntheticSession,
  until: (codes: readonly string[], foldsLanded: number) => boolean,
): Promise<void> {
  for (let step = 0; step < 200; step += 1) {
    session.step();
    const result = await runtime.project(session.entries);
    runtime.recordUsage({ input: providerTokens(result.ledger.totalChars), cacheRead: 0, cacheWrite: 0, output: 100 });
    if (
      until(
        result.warningRecords.map((warning) => warning.code),
        result.ledger.foldsLanded,
      )
    )
      return;
  }
  throw new Error('the condition never held');
}

async function refusingSession(scheduling: string) {
  const store = new FaultyFoldStore(new MemoryFoldStore());
  const { runtime } = await openRuntime({ store, settings: { scheduling } });
  // Blobs and records are refused: every commit is skipped; state saves still succeed.
  store.faults.refuse(['blob', 'fold']);
  return { store, runtime, session: new SyntheticSession({ seed: 8, resultChars: [4000, 12_000] }) };
}

describe('a commit the store refuses teaches the scheduler nothing', () => {
  it("leaves status's last reason unset, and sets it once a commit lands", async () => {
    const { store, runtime, session } = await refusingSession('cost');
    await driveUntil(runtime, session, (codes) => codes.includes('STORE.COMMIT_SKIPPED'));
    expect(runtime.view.memory.counters.commits).toBe(0);
    expect(runtime.view.scheduler.lastReason).toBeUndefined();
    store.faults.accept();
    await driveUntil(runtime, session, (_codes, foldsLanded) => foldsLanded > 0);
    expect(runtime.view.scheduler.lastReason).toBeDefined();
  });

  it('does not start the `immediate` drain on a refused commit', async () => {
    const { store, runtime, session } = await refusingSession('immediate');
    await driveUntil(runtime, session, (codes) => codes.includes('STORE.COMMIT_SKIPPED'));
    expect(runtime.view.scheduler.draining).toBe(false);
    expect(runtime.view.scheduler.lastReason).toBeUndefined();
    store.faults.accept();
    await driveUntil(runtime, session, (_codes, foldsLanded) => foldsLanded > 0);
    expect(runtime.view.scheduler.lastReason).toBe('immediate-drain');
  });
});
