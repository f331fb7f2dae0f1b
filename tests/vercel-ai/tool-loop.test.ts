import { describe, expect, it } from 'vitest';
import { canonicalBytes } from '../../adapters/hosts/vercel-ai/canonical-message.ts';
import { readLoop } from '../../testing/vercel-ai/scripted-model.ts';
import { appendOnlyViolations, pairingViolations } from './support/prompt-checks.ts';
import { type LoopKind, type LoopRun, runLoop } from './support/run-loop.ts';

const BUDGET = 40_000;
const STEPS = 64;
const MAX_TARGET = 0.8;
/** Share of the budget the provider's tokenizer and the engine's estimate may differ by. */
const TOLERANCE = 0.05;

/** Tokens the provider would count for the history the SDK appended since the previous step. */
function appendedTokens(run: LoopRun, step: number): number {
  const before = run.histories[step - 1]!.length;
  let chars = 0;
  for (const message of run.histories[step]!.slice(before)) chars += canonicalBytes(message).length;
  return Math.ceil(chars / 3.6);
}

describe.each<LoopKind>(['generateText', 'streamText', 'ToolLoopAgent.stream'])(
  'a %s tool loop with large results',
  (kind) => {
    it('keeps every prompt append-only between recorded rewrites, paired, under budget, and commits at maxTarget', async () => {
      const run = await runLoop({
        kind,
        script: readLoop(STEPS),
        maxSteps: STEPS + 5,
        folding: {
          sessionId: `loop-${kind.replace('.', '-')}`,
          settings: { providerInputBudget: BUDGET, scheduling: 'band', rawFloorTokens: 0 },
        },
      });
      const { folding, model, prompts } = run;
      expect(run.errors).toEqual([]);
      expect(model.calls).toHaveLength(STEPS + 1);
      expect(prompts).toHaveLength(STEPS + 1);
      // The raw history is several budgets long: folding had to work to keep these prompts small.
      const rawTokens = Math.ceil(
        run.histories[STEPS]!.reduce((sum, message) => sum + canonicalBytes(message).length, 0) / 3.6,
      );
      expect(rawTokens).toBeGreaterThan(4 * BUDGET);

      // docs/behaviour.md I1: every prompt extends the previous one's bytes unless the ledger recorded why not.
      expect(appendOnlyViolations(prompts, folding.runtime.view.ledger)).toEqual([]);
      expect(folding.runtime.view.memory.counters.unattributedRewrites).toBe(0);
      // docs/behaviour.md I3: every prompt is one a provider accepts.
      for (const record of prompts) expect(pairingViolations(record.prompt)).toEqual([]);
      // Budget fence, in the provider's own count.
      for (const call of model.calls) expect(call.tokens).toBeLessThanOrEqual(BUDGET);

      // Commits land when the unfolded prompt reaches maxTarget, and not before.
      const rows = folding.runtime.view.ledger;
      expect(rows).toHaveLength(STEPS + 1);
      const commits = rows.filter((row) => row.foldsLanded > 0);
      expect(commits.length).toBeGreaterThanOrEqual(3);
      for (let step = 1; step < rows.length; step += 1) {
        const candidate = model.calls[step - 1]!.tokens + appendedTokens(run, step);
        const row = rows[step]!;
        if (row.foldsLanded > 0) {
          expect(candidate, `request ${row.request} committed early`).toBeGreaterThanOrEqual(
            (MAX_TARGET - TOLERANCE) * BUDGET,
          );
          expect(
            model.calls[step]!.tokens,
            `request ${row.request} is still above maxTarget after its commit`,
          ).toBeLessThan(MAX_TARGET * BUDGET);
          expect(row.causes).toContain('commit');
        } else {
          expect(candidate, `request ${row.request} should have committed`).toBeLessThan(
            (MAX_TARGET + TOLERANCE) * BUDGET,
          );
        }
      }
      // The middleware reported each call's usage against the request it was projected as.
      for (const row of rows) expect(row.providerCacheRead).toBe(model.calls[row.request - 1]!.cacheRead);
      // Between commits the provider's prefix cache hits: pure appends read the previous prompt from cache.
      const pureAppends = rows.filter((row, step) => step > 0 && row.causes.length === 0);
      expect(pureAppends.length).toBeGreaterThan(STEPS / 2);
      for (const row of pureAppends) expect(model.calls[row.request - 1]!.cacheRead).toBeGreaterThan(0);
      await folding.dispose();
    }, 60_000);
  },
);
