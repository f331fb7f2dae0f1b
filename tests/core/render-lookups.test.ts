import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldRuntime, sessionStateOf } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import type { SessionState } from '../../core/session/session-state.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import {
  assistantEntry,
  seededRandom,
  sourceLikeText,
  toolResultEntry,
  userEntry,
} from '../../testing/synthetic-session.ts';

/**
 * Every request renders at least what it appended, and a render looks up the window's
 * inserts (one receipt or notice per commit, so they grow with the session) and the retired
 * peeks. Those lookups are built when the lists change, not on every request. Counted, not timed.
 */

function lists(session: SessionState): readonly unknown[] {
  return [
    session.model.memory.inserts,
    session.model.memory.inserts.length,
    session.model.memory.ephemeralPeeks,
    session.model.memory.ephemeralPeeks.length,
  ];
}

describe("a request's render looks up the window's inserts without rebuilding them", () => {
  it('requests that change no insert or peek build no lookup, however many inserts stand', async () => {
    const runtime = await FoldRuntime.open({
      sessionId: 'render-lookups',
      settings: resolveSettings({
        providerInputBudget: 60_000,
        scheduling: 'band',
        spill: { thresholdBytes: 262_144, keepBytes: 4_096 },
      }),
      foldStore: new MemoryFoldStore(),
      costModel: createCharsCostModel(),
    });
    const session = sessionStateOf(runtime);
    const random = seededRandom(3);
    const entries: TranscriptEntry[] = [userEntry('u0', 'go')];
    let quietRequests = 0;
    let previousChanged = true;
    for (let step = 1; step <= 300; step += 1) {
      const call = { id: `c${step}`, name: 'read', arguments: { path: `src/f${step}.c` } };
      entries.push(
        assistantEntry(`a${step}`, `step ${step}`, [call]),
        toolResultEntry(
          `r${step}`,
          call.id,
          'read',
          sourceLikeText(random, 800 + Math.floor(random() * 1_200), `f${step}`),
        ),
      );
      const before = lists(session);
      const builds = session.services.lookups.builds;
      const result = await runtime.project(entries);
      runtime.recordUsage({ input: result.ledger.estimatedTokens, cacheRead: 0, cacheWrite: 0, output: 20 });
      const changed = lists(session).some((item, position) => item !== before[position]);
      // Lists unchanged since the previous request's lookups were built: nothing to build again.
      if (!previousChanged && !changed && result.ledger.foldsLanded === 0) {
        quietRequests += 1;
        expect(session.services.lookups.builds).toBe(builds);
      }
      previousChanged = changed || result.ledger.foldsLanded > 0;
      // Whatever was reused, the render reads the lookups the lists stand for now.
      const inputs = session.renderInputs();
      expect([...inputs.insertsByAnchor.entries()]).toEqual(expectedInserts(session));
      expect([...inputs.retiredPeeks.entries()]).toEqual(
        session.model.memory.ephemeralPeeks
          .filter((peek) => peek.retired)
          .map((peek) => [peek.toolCallId, peek.foldId]),
      );
    }
    expect(runtime.view.memory.counters.commits).toBeGreaterThan(2);
    expect(runtime.view.memory.inserts.length).toBeGreaterThan(0);
    expect(quietRequests).toBeGreaterThan(100);
  });
});

/** The inserts by anchor, built here from the state's list. */
function expectedInserts(session: SessionState): [string, unknown[]][] {
  const byAnchor = new Map<string, unknown[]>();
  for (const insert of session.model.memory.inserts)
    byAnchor.set(insert.afterEntryId, [...(byAnchor.get(insert.afterEntryId) ?? []), insert]);
  return [...byAnchor.entries()];
}
