import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { servingBudget } from '../../core/pricing/budget.ts';
import { DEFAULT_THRESHOLDS } from '../../core/settings/settings.ts';
import {
  CONTEXT_WINDOW,
  openScriptedPi,
  type RecordedRequest,
  type Script,
  settle,
} from '../../testing/pi/scripted-pi.ts';
import { assertPairing, prefixHolds } from './support/prompt-checks.ts';

const TOOL_CALLS = 84;
/** The band policy, as the seed ran it: this test pins commit timing to maxTarget through a real host. */
const BAND = { scheduling: 'band', rawFloorTokens: 0 } as const;

/** One user message, then 84 tool calls with 5–40 KB results, a note every few calls, then an answer. */
// Progress is counted from the requests themselves: folds hide earlier assistant messages.
export const longTurnScript: Script = (request) => {
  const calls = request.index;
  if (calls >= TOOL_CALLS) return { kind: 'text', text: 'All blobs read; done.' };
  const size = 5_000 + ((calls * 7_919) % 35_001);
  return {
    kind: 'tools',
    ...(calls % 5 === 0 ? { text: `Reading blob ${calls}; so far so good.` } : {}),
    calls: [{ name: 'fetch_blob', arguments: { seed: calls, size } }],
  };
};

describe('pi: one long agentic turn in a real AgentSession', () => {
  it('stays under budget, keeps I1 on the exact prompts, attributes every rewrite and commits at maxTarget', async () => {
    const pi = await openScriptedPi({
      script: longTurnScript,
      fold: { foldStore: new MemoryFoldStore(), settingsPath: '/nonexistent/pi-fold/settings.json', settings: BAND },
    });
    await pi.session.prompt('Read the blobs one by one and report.');
    await settle(pi.session);
    const { requests, ledger } = pi;
    expect(pi.errors).toEqual([]);
    expect(requests.length).toBe(TOOL_CALLS + 1);
    expect(ledger.length).toBe(requests.length);
    const budget = servingBudget(undefined, CONTEXT_WINDOW);
    for (const request of requests) expect(request.promptTokens).toBeLessThanOrEqual(budget);
    let rewrites = 0;
    for (let index = 1; index < requests.length; index += 1) {
      const row = ledger[index]!;
      expect(row.unattributed).toBe(false);
      const appendOnly = prefixHolds(requests[index - 1]!, requests[index]!);
      if (!appendOnly) {
        rewrites += 1;
        expect(row.causes.length, `request ${index + 1} rewrote the prompt without a recorded cause`).toBeGreaterThan(
          0,
        );
      }
      if (row.causes.length === 0) expect(appendOnly, `request ${index + 1} is recorded as a pure append`).toBe(true);
    }
    const commits = ledger.filter((row) => row.foldsLanded > 0);
    expect(commits.length).toBeGreaterThan(0);
    expect(rewrites).toBeGreaterThan(0);
    expect(rewrites).toBeLessThan(requests.length / 4);
    for (const row of commits)
      expect(row.preCommitTokens).toBeGreaterThanOrEqual(DEFAULT_THRESHOLDS.maxTarget * budget);
    for (const request of requests) assertPairing(request);
    expect(pi.sessionManager.getEntries().some((entry) => entry.type === 'compaction')).toBe(false);
    const total = requests.at(-1)!.serialized.reduce((sum, line) => sum + line.length, 0);
    const raw = pi.sessionManager
      .getBranch()
      .reduce((sum, entry) => sum + (entry.type === 'message' ? JSON.stringify(entry.message).length : 0), 0);
    expect(total).toBeLessThan(raw / 2);
  }, 120_000);
});

export type { RecordedRequest };
