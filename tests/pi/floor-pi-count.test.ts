import { estimateTokens } from '@mariozechner/pi-coding-agent';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { openScriptedPi, type RecordedRequest, type Script, settle } from '../../testing/pi/scripted-pi.ts';

const TOOL_CALLS = 150;
const FLOOR_TOKENS = 20_000;

/**
 * Many small steps, like a Claude Code session: a short note and a 1.5 KB result each. Pi's
 * stored messages carry usage, model and timestamps beside that content, a large share of
 * their bytes here, so a floor measured on bytes kept less than Pi's own compaction would.
 */
const smallStepsScript: Script = (request) => {
  const calls = request.index;
  if (calls >= TOOL_CALLS) return { kind: 'text', text: 'All blobs read; done.' };
  return {
    kind: 'tools',
    text: `Step ${calls}: reading the next blob.`,
    calls: [{ name: 'fetch_blob', arguments: { seed: calls, size: 1_500 } }],
  };
};

/** Pi's own token estimate of the messages after the last folded one (pi-fold's notices and receipts left out). */
function rawTokensAfterLastFold(request: RecordedRequest): number {
  let lastFolded = -1;
  request.serialized.forEach((line, position) => {
    if (line.includes('[folded ') || line.includes('[result folded into')) lastFolded = position;
  });
  expect(lastFolded, `request ${request.index} shows a fold`).toBeGreaterThanOrEqual(0);
  let tokens = 0;
  for (let position = lastFolded + 1; position < request.messages.length; position += 1) {
    if (!request.serialized[position]!.includes('[pi-fold'))
      tokens += estimateTokens(request.messages[position] as never);
  }
  return tokens;
}

describe('pi: the raw working-set floor by Pi\'s own count (docs/cost-scheduling.md, "The floor")', () => {
  it("every automatic commit leaves at least keepRecentTokens raw, as Pi's estimateTokens counts them", async () => {
    const pi = await openScriptedPi({
      script: smallStepsScript,
      fold: {
        foldStore: new MemoryFoldStore(),
        settingsPath: '/nonexistent/pi-fold/settings.json',
        settings: { providerInputBudget: 100_000 },
      },
    });
    await pi.session.prompt('Read the blobs one by one and report.');
    await settle(pi.session);
    expect(pi.errors).toEqual([]);
    expect(pi.ledger.length).toBe(pi.requests.length);
    const committed = pi.requests.filter((_, index) => pi.ledger[index]!.foldsLanded > 0);
    expect(committed.length).toBeGreaterThan(0);
    for (const request of committed)
      expect(rawTokensAfterLastFold(request), `request ${request.index}`).toBeGreaterThanOrEqual(FLOOR_TOKENS);
  }, 180_000);
});
