import { describe, expect, it } from 'vitest';
import { MAX_PENDING_MARKS } from '../../core/state/engine-memory.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { seededRandom } from '../../testing/seeded-random.ts';
import { assistantEntry, sourceLikeText, toolResultEntry, userEntry } from '../../testing/synthetic-session.ts';
import { pairingViolations, serialize } from '../../testing/window-checks.ts';
import { openRuntime } from '../support/drive-session.ts';

/** Closed turns of tool batches, each result big enough to be a tool fold of its own. */
function longHistory(turns: number, batchesPerTurn: number, resultChars: number): TranscriptEntry[] {
  const random = seededRandom(11);
  const entries: TranscriptEntry[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    entries.push(userEntry(`u${turn}`, `task ${turn}`));
    for (let batch = 0; batch < batchesPerTurn; batch += 1) {
      const call = `c${turn}_${batch}`;
      entries.push(assistantEntry(`a${call}`, '', [{ id: call, name: 'read', arguments: { path: `${call}.ts` } }]));
      entries.push(toolResultEntry(`r${call}`, call, 'read', sourceLikeText(random, resultChars, call)));
    }
    entries.push(assistantEntry(`done${turn}`, `turn ${turn} done`));
  }
  entries.push(userEntry('now', 'and now?'));
  return entries;
}

describe('the fence on a history pi-fold meets for the first time (docs/behaviour.md I6)', () => {
  // Each shape holds more tool batches than marks may wait; the last three also more chapters
  // than may wait, at the chapter sizes of a session folded as it goes.
  it.each([
    { batches: 2 * MAX_PENDING_MARKS, perTurn: 16, resultChars: 9_000, budget: 100_000 },
    { batches: 1_229, perTurn: 40, resultChars: 24_000, budget: 200_000 },
    { batches: 8 * MAX_PENDING_MARKS, perTurn: 16, resultChars: 9_000, budget: 100_000 },
    // More units than chapters of the usual longest size can cover in the marks that may wait:
    // a session of hundreds of MB (Pi's 300 MB bench session has 12,286 batches).
    { batches: 13_000, perTurn: 40, resultChars: 1_500, budget: 40_000 },
  ])('brings $batches batches of $resultChars chars under $budget tokens in one commit', async (shape) => {
    const { batches, perTurn, resultChars, budget } = shape;
    const entries = longHistory(Math.ceil(batches / perTurn), perTurn, resultChars);
    const { runtime } = await openRuntime({ settings: { providerInputBudget: budget } });
    const rawChars = entries.reduce((sum, entry) => sum + entry.bytes.length, 0);
    expect(rawChars / 4).toBeGreaterThan(10 * budget);

    const result = await runtime.project(entries);

    expect(result.ledger.estimatedTokens).toBeLessThanOrEqual(budget);
    expect(result.ledger.foldsLanded).toBeGreaterThan(0);
    expect(pairingViolations(result.messages)).toEqual([]);
    // The oldest result is folded away, and one peek brings its exact bytes back.
    const oldest = entries.find((entry) => entry.id === 'rc0_0')!;
    expect(serialize(result.messages)).not.toContain(oldest.text.slice(0, 200));
    const records = [...runtime.view.lattice.allRecords()];
    const oldestFold = records.find((record) => record.firstEntryId === 'rc0_0' && record.lastEntryId === 'rc0_0');
    const covering = oldestFold ?? records.find((record) => record.firstEntryId === 'u0')!;
    const answer = await runtime.act({ action: 'peek', id: covering.id, bytes: 65_536 });
    expect(answer.text).toContain(oldest.bytes.slice(0, 400));
  });
});
