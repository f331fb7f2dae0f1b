import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { AI_SDK_MAJOR } from '../../adapters/hosts/vercel-ai/ai-sdk-version.ts';
import type { ModelPrompt } from '../../adapters/hosts/vercel-ai/usage-middleware.ts';
import { runSdkArm } from '../../lab/ai-sdk/run-sdk-arm.ts';
import { SDK_ARMS, type SdkArmName } from '../../lab/ai-sdk/sdk-arms.ts';
import { historyPruner } from '../../lab/ai-sdk/sdk-history.ts';
import type { ArmResult } from '../../lab/report/lab-records.ts';
import { labWorkload, runLabWorkload } from '../../lab/workload/lab-workload.ts';
import { readFileTool, readLoop, ScriptedModel } from '../../testing/vercel-ai/scripted-model.ts';

// The AI SDK lab's `prune` arm on whichever `ai` loaded: the main suite runs it on ai@6, the
// compatibility job on ai@7, whose prepareStep keeps a returned list as the state later steps
// start from. Written the 7.x way, the arm returns nothing on steps below its threshold and
// relies on that state: what it pruned must still be gone from those steps' prompts.

/** Tool results a prompt carries, by call id. */
function resultIds(prompt: ModelPrompt): string[] {
  return prompt.flatMap((message) =>
    message.role === 'tool' ? message.content.flatMap((part) => ('toolCallId' in part ? [part.toolCallId] : [])) : [],
  );
}

const READS = 12;
// Each read is 9k–14k chars: half this window is about three of them in the 7.x guide's estimate.
const WINDOW_TOKENS = 16_000;

describe(`the lab's prune arm on ai@${AI_SDK_MAJOR}`, () => {
  it('keeps what it pruned out of every later prompt, including steps it leaves alone', async () => {
    const model = new ScriptedModel(readLoop(READS));
    const pruner = historyPruner(SDK_ARMS.prune, WINDOW_TOKENS);
    if (pruner === undefined) throw new Error('the prune arm has no pruner');
    const overridden: boolean[] = [];
    await generateText({
      model: model.model,
      tools: { read_file: readFileTool },
      stopWhen: stepCountIs(READS + 2),
      messages: [{ role: 'user', content: 'Read the modules one by one.' }],
      prepareStep: ({ messages }: { messages: ModelMessage[] }) => {
        const kept = pruner(messages, 0);
        overridden.push(kept !== undefined);
        return kept === undefined ? undefined : { messages: kept };
      },
    });
    const prompts = model.calls.map((call) => resultIds(call.prompt));
    expect(prompts).toHaveLength(READS + 1);
    const seen = new Set<string>();
    const pruned = new Set<string>();
    for (const [step, ids] of prompts.entries()) {
      for (const id of ids)
        expect(pruned.has(id), `step ${step}: result ${id} came back after it was pruned`).toBe(false);
      for (const id of seen) if (!ids.includes(id)) pruned.add(id);
      for (const id of ids) seen.add(id);
    }
    expect(pruned.size, 'the arm pruned some results').toBeGreaterThan(READS / 2);
    expect(prompts.at(-1)?.length ?? READS).toBeLessThan(4);
    // 7.x: the guide's prune fires past its threshold only; the steps between carry its result.
    if (AI_SDK_MAJOR === 7) {
      const afterFirstPrune = overridden.slice(overridden.indexOf(true) + 1);
      expect(
        afterFirstPrune.filter((fired) => !fired).length,
        'steps that relied on the carried state',
      ).toBeGreaterThan(0);
    }
  });

  it('runs the shaped smoke preset: every arm but unmanaged finishes, fold loses and stales nothing', async () => {
    const arms: SdkArmName[] = ['prune', 'prune-held', 'server-clear', 'fold'];
    const run = await runLabWorkload(labWorkload('shaped-smoke'), {
      seed: 1,
      arms,
      priceList: 'gpt-5.6-ledger',
      runArm: (input) => runSdkArm({ ...input, arm: input.arm as SdkArmName }),
    });
    const byName = new Map(run.arms.map((result) => [result.arm, result]));
    const lostOrStale = (result: ArmResult) =>
      (result.probes?.lost ?? 0) +
      (result.workingSet?.lost ?? 0) +
      (result.probes?.stale ?? 0) +
      (result.workingSet?.stale ?? 0);
    for (const name of arms) expect(byName.get(name)?.failure, name).toBeUndefined();
    const fold = byName.get('fold');
    expect(fold?.foldEvents).toBeGreaterThan(0);
    expect(fold === undefined ? -1 : lostOrStale(fold)).toBe(0);
    const prune = byName.get('prune');
    expect(prune?.compactions, 'the prune arm edited the prompt').toBeGreaterThan(0);
  }, 120_000);
});
