import { generateText, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { createFolding } from '../../adapters/hosts/vercel-ai/index.ts';
import { DEFAULT_THRESHOLDS } from '../../core/settings/settings.ts';
import type { CommitTelemetry } from '../../ports/projection-sink.port.ts';
import { readFileTool, type Script, ScriptedModel } from '../../testing/vercel-ai/scripted-model.ts';

const BUDGETS = { large: 80_000, small: 30_000 };
const SWITCH_AT_STEP = 16;
const READS = 30;

describe("vercel-ai: the step's model picks its budget, and commits reach onCommitTelemetry", () => {
  it("a prepareStep that switches to a smaller model gets that model's budget from the same step on", async () => {
    const events: CommitTelemetry[] = [];
    const folding = await createFolding({
      store: 'memory',
      sessionId: 'model-switch',
      settings: { providerInputBudget: BUDGETS },
      onCommitTelemetry: (event) => events.push(event),
      onWarning: () => undefined,
    });
    // One read per step across both models, counted over the whole loop.
    let steps = 0;
    const script: Script = () => {
      steps += 1;
      return steps > READS
        ? { text: 'done' }
        : { toolCalls: [{ toolName: 'read_file', input: { path: `src/module_${steps}.ts` } }] };
    };
    const large = new ScriptedModel(script, { modelId: 'large', callIdPrefix: 'large_' });
    const small = new ScriptedModel(script, { modelId: 'small', callIdPrefix: 'small_' });
    await generateText({
      model: folding.wrapModel(large.model),
      prompt: 'Audit the repository.',
      tools: { read_file: readFileTool, ...folding.tools },
      prepareStep: folding.composePrepareStep(({ stepNumber }) =>
        stepNumber >= SWITCH_AT_STEP ? { model: folding.wrapModel(small.model) } : undefined,
      ),
      stopWhen: stepCountIs(READS + 5),
    });
    const rows = folding.runtime.view.ledger;
    expect(large.calls).toHaveLength(SWITCH_AT_STEP);
    expect(small.calls.length).toBe(READS + 1 - SWITCH_AT_STEP);
    expect(rows).toHaveLength(READS + 1);
    const [beforeSwitch, afterSwitch] = [rows.slice(0, SWITCH_AT_STEP), rows.slice(SWITCH_AT_STEP)];
    for (const row of beforeSwitch) expect(row.budgetTokens).toBe(BUDGETS.large);
    for (const row of afterSwitch) expect(row.budgetTokens).toBe(BUDGETS.small);
    // The large model never needed a commit; its last prompt is past what the small one may hold.
    expect(beforeSwitch.every((row) => row.foldsLanded === 0)).toBe(true);
    expect(large.calls.at(-1)!.tokens).toBeGreaterThan(DEFAULT_THRESHOLDS.maxTarget * BUDGETS.small);
    // The first request to the small model commits down to its budget, in the provider's count.
    expect(afterSwitch[0]!.foldsLanded).toBeGreaterThan(0);
    for (const call of small.calls) expect(call.tokens).toBeLessThanOrEqual(BUDGETS.small);

    // Each commit is reported twice: when it lands and once the provider measured its request.
    const commits = rows.filter((row) => row.foldsLanded > 0).map((row) => row.request);
    expect(events.filter((event) => event.phase === 'landed').map((event) => event.request)).toEqual(commits);
    const measured = events.filter((event) => event.phase === 'measured');
    expect(measured.map((event) => event.request)).toEqual(commits);
    for (const event of measured) {
      const call = small.calls[event.request - 1 - SWITCH_AT_STEP]!;
      expect(event.measuredTokensAfter).toBe(call.tokens);
      expect(event.providerCacheRead).toBe(call.cacheRead);
    }
    await folding.dispose();
  }, 60_000);
});
