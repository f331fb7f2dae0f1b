import { generateText, stepCountIs, type Tool, tool } from 'ai';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { createFolding } from '../../adapters/hosts/vercel-ai/index.ts';
import type { ModelPrompt, PromptRecord } from '../../adapters/hosts/vercel-ai/usage-middleware.ts';
import { readFoldSource } from '../../core/store/fold-source.ts';
import type { LedgerRow } from '../../ports/projection-sink.port.ts';
import { readFileTool, ScriptedModel } from '../../testing/vercel-ai/scripted-model.ts';
import { forestViolations } from '../../testing/window-checks.ts';
import { appendOnlyViolations, pairingViolations } from '../vercel-ai/support/prompt-checks.ts';
import {
  type HostileCall,
  hostileCall,
  livePools,
  refusalProblems,
  resolveCall,
  runtimeFingerprint,
} from './support/hostile-actions.ts';

/**
 * Model-based fuzzing of `fold_context` through a real AI SDK loop: generateText with a
 * MockLanguageModelV3 that reads files until folds exist, then sends one random, often
 * hostile, fold_context call per step (arguments go through JSON, as a provider's do). The
 * tool is the adapter's own, wrapped only to observe the runtime around each execute.
 * Every prompt the model receives is checked (docs/behaviour.md I1 append-only with causes, I3 pairing and
 * forest, docs/behaviour.md I6 budget); every refusal reaches the model as an error naming its reason and
 * leaves the runtime and its rendered window byte-identical.
 */
const long = process.env.PI_FOLD_LONG_TESTS === '1';
const HOSTILE_STEPS = long ? 2_000 : 300;
const READS = 40;
const BUDGET = 120_000;

describe('hardening: fuzzing fold_context through a real generateText loop', () => {
  it(`${HOSTILE_STEPS} hostile calls in one loop: no crash, refusals named and inert, every prompt valid`, {
    timeout: long ? 1_800_000 : 300_000,
  }, async () => {
    const store = new MemoryFoldStore();
    const other = await createFolding({
      sessionId: 'other-session',
      store,
      settings: { providerInputBudget: BUDGET },
      onWarning: () => undefined,
    });
    await runLoop(other, READS + 2, () => undefined);
    const foreign = [...other.runtime.view.lattice.allRecords()].map((record) => record.id);
    expect(foreign.length).toBeGreaterThan(0);

    const prompts: PromptRecord[] = [];
    const ledger: LedgerRow[] = [];
    const folding = await createFolding({
      sessionId: 'fuzzed-session',
      store,
      settings: { providerInputBudget: BUDGET },
      onPrompt: (record) => prompts.push(record),
      onWarning: () => undefined,
      projectionSink: { specificationVersion: 'v1', accept: (projection) => ledger.push(projection.ledger) },
    });
    const runtime = folding.runtime;
    const calls: HostileCall[] = fc.sample(
      fc.array(hostileCall, { minLength: HOSTILE_STEPS, maxLength: HOSTILE_STEPS }),
      { numRuns: 1, seed: 777 },
    )[0]!;
    const counts = { refused: 0, accepted: 0 };
    const problems: string[] = [];
    const real = folding.tools.fold_context!;
    // Observe the real execute: what the runtime looked like before a refusal must survive it.
    const observed: Tool = tool({
      description: real.description ?? '',
      inputSchema: real.inputSchema,
      execute: async (input, options) => {
        const before = runtimeFingerprint(runtime);
        try {
          const answer = await real.execute!(input as never, options);
          counts.accepted += 1;
          return answer;
        } catch (error) {
          counts.refused += 1;
          problems.push(...refusalProblems(error, input as Record<string, unknown>));
          if (runtimeFingerprint(runtime) !== before)
            problems.push(`refusal ${String((error as Error).message).slice(0, 120)} changed the runtime`);
          throw error;
        }
      },
    });
    const script = ({ call }: { call: number }) => {
      if (call < READS) return { toolCalls: [{ toolName: 'read_file', input: { path: `src/module_${call}.ts` } }] };
      if (call >= READS + HOSTILE_STEPS) return { text: 'done' };
      // JSON round trip: what a provider can actually deliver (NaN becomes null, functions vanish).
      const args = JSON.parse(
        JSON.stringify(resolveCall(calls[call - READS]!, livePools(runtime, foreign))) ?? 'null',
      ) as unknown;
      return { toolCalls: [{ toolName: 'fold_context', input: args }] };
    };
    const model = new ScriptedModel(script, { cheapUsage: true });
    const result = await generateText({
      model: folding.wrapModel(model.model),
      tools: { read_file: readFileTool, fold_context: observed },
      prepareStep: folding.prepareStep,
      stopWhen: stepCountIs(READS + HOSTILE_STEPS + 1),
      prompt: 'Audit the repository.',
    });
    expect(problems).toEqual([]);
    expect([...runtime.view.lattice.allRecords()].length, 'the fuzzed session has folds to aim at').toBeGreaterThan(0);
    expect(counts.refused + counts.accepted).toBe(HOSTILE_STEPS);
    for (const record of prompts) expect(pairingViolations(record.prompt as ModelPrompt)).toEqual([]);
    expect(appendOnlyViolations(prompts, ledger)).toEqual([]);
    for (const row of ledger) expect(row.estimatedTokens).toBeLessThanOrEqual(row.budgetTokens);
    expect(forestViolations([...runtime.view.lattice.allRecords()], (id) => runtime.view.index.positionOf(id))).toEqual(
      [],
    );
    for (const record of runtime.view.lattice.allRecords())
      await readFoldSource(store, (id) => runtime.view.lattice.record(id), record.id);
    // Every refusal reached the model as an error result carrying its code.
    const errorResults = result.steps.flatMap((step) => step.content).filter((part) => part.type === 'tool-error');
    expect(errorResults.length).toBe(counts.refused);
    for (const part of errorResults)
      expect(String((part as { error: unknown }).error)).toMatch(/^FoldError: [A-Z]+\.[A-Z_]+: |[A-Z]+\.[A-Z_]+: /);
    console.info(
      `[fuzz ai-sdk] ${HOSTILE_STEPS} hostile calls through generateText: ${counts.accepted} accepted, ${counts.refused} refused, ${prompts.length} prompts checked, ${[...runtime.view.lattice.allRecords()].length} folds verified`,
    );
  });
});

async function runLoop(
  folding: Awaited<ReturnType<typeof createFolding>>,
  steps: number,
  onStep: () => void,
): Promise<void> {
  const model = new ScriptedModel(
    ({ call }) =>
      call < steps
        ? { toolCalls: [{ toolName: 'read_file', input: { path: `other/module_${call}.ts` } }] }
        : { text: 'done' },
    { cheapUsage: true },
  );
  await generateText({
    model: folding.wrapModel(model.model),
    tools: { read_file: readFileTool, ...folding.tools },
    prepareStep: folding.prepareStep,
    stopWhen: stepCountIs(steps + 1),
    prompt: 'Fill the other session.',
    onStepFinish: onStep,
  });
}
