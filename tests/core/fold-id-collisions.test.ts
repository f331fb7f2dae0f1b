import { mkdtemp, rm, unlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { driveSession, openRuntime, providerTokens } from '../support/drive-session.ts';

/**
 * A fold id is derived, and records are immutable, so a session can meet a record of its own
 * id that is not the one it lands: after its state was lost, or when another conversation
 * reuses the session id with the same entry ids. Folding must go on; a collision is not a
 * store failure, and no request may be refused blaming a healthy store.
 */
const scratch = await mkdtemp(join(tmpdir(), 'pi-fold-collisions-'));
afterAll(() => rm(scratch, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }), 60_000);
const SESSION = 'session-1';

/**
 * Drive `steps` more requests of `session` (its entries as `view` shows them) and collect
 * every warning and refusal code. The first request carries the whole conversation so far,
 * as a host hands it to a runtime that starts without state.
 */
async function drive(
  runtime: FoldRuntime,
  session: SyntheticSession,
  steps: number,
  view: (entries: readonly TranscriptEntry[]) => readonly TranscriptEntry[] = (entries) => entries,
): Promise<string[]> {
  const codes: string[] = [];
  for (let step = 0; step <= steps; step += 1) {
    if (step > 0) session.step();
    try {
      const result = await runtime.project(view(session.entries));
      codes.push(...result.warningRecords.map((warning) => warning.code));
      runtime.recordUsage({
        input: providerTokens(result.ledger.totalChars),
        cacheRead: 0,
        cacheWrite: 0,
        output: 200,
      });
    } catch (error) {
      codes.push((error as { code?: string }).code ?? String(error));
    }
  }
  return codes;
}

async function storeWithFolds(label: string): Promise<{ store: FoldStore; session: SyntheticSession }> {
  const store = new FsFoldStore({ root: join(scratch, label) });
  const driven = await driveSession({ seed: 11, steps: 70, store });
  expect(driven.runtime.view.memory.counters.commits).toBeGreaterThan(2);
  await store.loadState(SESSION);
  return { store, session: driven.session };
}

/** The same conversation's shape and ids with other bytes: another conversation reusing them. */
function otherBytes(entries: readonly TranscriptEntry[]): TranscriptEntry[] {
  return entries.map((entry) => ({ ...entry, bytes: entry.bytes.replaceAll('e', 'E') }));
}

describe('fold id collisions', () => {
  test('a state lost with its records kept: the same conversation folds again', async () => {
    const { store, session } = await storeWithFolds('state-lost');
    await unlink((store as FsFoldStore).layout.statePath(SESSION));
    const { runtime } = await openRuntime({ store });
    const codes = await drive(runtime, session, 60);
    expect(codes).not.toContain('STORE.COMMIT_SKIPPED');
    expect(codes).not.toContain('BUDGET.EXCEEDED');
    expect(runtime.view.memory.counters.commits).toBeGreaterThan(2);
    // Every fold landed is stored as shown and reads back byte for byte.
    for (const record of runtime.view.lattice.allRecords())
      expect(await store.getFold(SESSION, record.id)).toEqual(JSON.parse(JSON.stringify(record)));
    await store.loadState(SESSION);
  });

  test('another conversation under a reused session id, with the same entry ids', async () => {
    const { store } = await storeWithFolds('reused-id');
    const { runtime } = await openRuntime({ store });
    const replay = new SyntheticSession({ seed: 11, resultChars: [3000, 16_000] });
    const codes = await drive(runtime, replay, 110, otherBytes);
    expect(codes).toContain('TRANSCRIPT.SESSION_MISMATCH');
    expect(codes).not.toContain('STORE.COMMIT_SKIPPED');
    expect(codes).not.toContain('BUDGET.EXCEEDED');
    expect(runtime.view.memory.counters.commits).toBeGreaterThan(2);
    await store.loadState(SESSION);
  });
});
