import type { ToolDefinition } from '@mariozechner/pi-coding-agent';
import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { type ModelPolicy, runArm } from '../../lab/arms/run-arm.ts';
import { DEFAULT_CACHE_RULES } from '../../lab/provider/prefix-cache-simulator.ts';
import { LAB_TOKENIZER } from '../../lab/provider/wire-tokens.ts';
import type { ArmResult, LabRunSettings, RequestRow } from '../../lab/report/lab-records.ts';

/**
 * `page {n}`: a page of about `chars` characters, made in memory. The simulated provider and
 * this tool answer without waiting on I/O, so a whole agent run passes between two timer ticks,
 * as the shaped workload's tools do.
 */
function pageTool(chars: number): ToolDefinition {
  return {
    name: 'page',
    label: 'Page',
    description: 'Return page n of the document.',
    parameters: Type.Object({ n: Type.Integer() }),
    async execute(_id, params) {
      const { n } = params as { n: number };
      const lines = Array.from(
        { length: Math.ceil(chars / 24) },
        (_, line) => `page ${n} line ${line} says ${line * 7}`,
      );
      return { content: [{ type: 'text', text: lines.join('\n') }], details: {} };
    },
  };
}

const settings = (descriptorTokens: number, providerCapTokens: number): LabRunSettings => ({
  workload: 'settle',
  seed: 1,
  priceList: 'gpt-5.6-ledger',
  descriptorTokens,
  providerCapTokens,
  tokenizer: LAB_TOKENIZER,
  cacheRules: DEFAULT_CACHE_RULES,
});

/**
 * Asks for pages 1 … `pages`, one per request, then answers. It counts its own calls: a
 * compaction summarises earlier pages away, so the transcript cannot say how far it got.
 */
function readThenAnswer(pages: number): ModelPolicy & { answered: number } {
  let issued = 0;
  const policy: ModelPolicy & { answered: number } = Object.assign(
    (request: Parameters<ModelPolicy>[0]) => {
      if (request.purpose === 'summary') return { text: `summary: ${issued} pages read so far` };
      if (issued >= pages) {
        policy.answered += 1;
        return { text: 'done' };
      }
      issued += 1;
      return { text: `reading page ${issued}`, toolCalls: [{ name: 'page', arguments: { n: issued } }] };
    },
    { answered: 0 },
  );
  return policy;
}

/** Run one native arm and count the requests it makes after `runArm` has returned. */
async function nativeArm(
  descriptorTokens: number,
  capTokens: number,
  pages: number,
): Promise<{ result: ArmResult; answered: number; requestsAfterReturn: number }> {
  const rows: RequestRow[] = [];
  const policy = readThenAnswer(pages);
  const result = await runArm({
    arm: 'native',
    settings: settings(descriptorTokens, capTokens),
    tools: [pageTool(24_000)],
    prompts: ['read the pages, then say done'],
    policy,
    onRow: (row) => rows.push(row),
  });
  const atReturn = rows.length;
  // Well past any retry delay: whatever the session still had scheduled has run by now.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  return { result, answered: policy.answered, requestsAfterReturn: rows.length - atReturn };
}

describe('settling a lab arm: nothing of an arm runs after it returns', () => {
  it('waits for every retry Pi starts after an overflow compaction, the second one included', async () => {
    // Each page is about 11k tokens against a 40k cap: every fourth request is refused, Pi
    // compacts and retries, many times in one turn.
    const { result, answered, requestsAfterReturn } = await nativeArm(200_000, 40_000, 12);
    expect(requestsAfterReturn).toBe(0);
    expect(result.failure).toBeUndefined();
    expect(result.compactions).toBeGreaterThanOrEqual(2);
    expect(answered).toBe(1);
    const last = result.rows.at(-1)!;
    expect(last.purpose).toBe('agent');
    expect(last.rejected).toBe(false);
  }, 60_000);

  it('says so when Pi announces a retry and never starts it, and leaves nothing running', async () => {
    // The final reply's prompt is over the 30k window Pi is told of but under the provider's
    // cap: Pi 0.73.1 takes the finished reply for an overflow, compacts, announces a retry,
    // and cannot continue from that reply. The turn had ended: a note, not a failure.
    const { result, answered, requestsAfterReturn } = await nativeArm(30_000, 200_000, 4);
    expect(requestsAfterReturn).toBe(0);
    expect(answered).toBe(1);
    expect(result.compactions).toBe(1);
    expect(result.failure).toBeUndefined();
    expect(result.hostNotes).toEqual([
      expect.stringMatching(
        /^Pi announced a retry after overflow compaction that did not start within 1000 ms; the turn had already ended/,
      ),
    ]);
    expect(result.rows.at(-1)!.purpose).toBe('summary');
  }, 60_000);
});
