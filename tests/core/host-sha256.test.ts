import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { FoldError } from '../../core/fold-error.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { openRuntime, providerTokens } from '../support/drive-session.ts';

/**
 * A host may hand each entry's SHA-256 so the engine need not hash it. A wrong one is the
 * host's mistake, not the store's: it is refused by name when the entry arrives, before
 * anything changes, rather than surfacing later as a store that "filed the entry under
 * another hash", which read as a store outage and was warned of on every commit.
 */
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

const withClaimedSha = (entries: readonly TranscriptEntry[], victimId: string, sha256: string) =>
  entries.map((entry) => (entry.id === victimId ? { ...entry, sha256 } : entry));

describe('an entry whose sha256 does not match its bytes', () => {
  it('is refused when it arrives, naming the entry, and blames no store', async () => {
    const root = mkdtempSync(join(tmpdir(), 'pi-fold-host-sha-'));
    roots.push(root);
    const { runtime } = await openRuntime({
      store: new FsFoldStore({ root }),
      settings: { providerInputBudget: 30_000 },
    });
    const session = new SyntheticSession({ seed: 6, resultChars: [3_000, 9_000] });
    session.step();
    await runtime.project(session.entries);
    const seen = session.entries.length;
    let victim: TranscriptEntry | undefined;
    while (victim === undefined) {
      session.step();
      victim = session.entries.slice(seen).find((entry) => entry.role === 'toolResult');
    }
    const wrong = sha256Hex(`${victim.bytes} (not these bytes)`);
    const storeWarnings: string[] = [];
    let refusal: FoldError | undefined;
    // Grown well past the point where commits land, every request carrying the bad entry.
    for (let step = 0; step < 30; step += 1) {
      if (step > 0) session.step();
      try {
        const result = await runtime.project(withClaimedSha(session.entries, victim.id, wrong));
        storeWarnings.push(...result.warningRecords.filter((w) => w.code.startsWith('STORE.')).map((w) => w.message));
        runtime.recordUsage({
          input: providerTokens(result.ledger.totalChars),
          cacheRead: 0,
          cacheWrite: 0,
          output: 0,
        });
      } catch (error) {
        if (!FoldError.isInstance(error)) throw error;
        refusal = error;
        break;
      }
    }
    expect(storeWarnings).toEqual([]);
    expect(refusal?.code).toBe('TRANSCRIPT.INVALID_ENTRY');
    expect(refusal?.message).toContain(`("${victim.id}")`);
    expect(refusal?.message).toMatch(new RegExp(`sha256 ${wrong} does not match its bytes`));
    // Refused before anything changed: the same branch with the true hash goes through.
    const requests = runtime.view.memory.counters.requests;
    await runtime.project(withClaimedSha(session.entries, victim.id, sha256Hex(victim.bytes)));
    expect(runtime.view.memory.counters.requests).toBe(requests + 1);
  });
});
