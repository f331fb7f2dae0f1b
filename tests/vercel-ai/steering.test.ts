import * as aiSdk from 'ai';
import { generateText, type ModelMessage, stepCountIs } from 'ai';
import { describe, expect, it } from 'vitest';
import { createFolding } from '../../adapters/hosts/vercel-ai/index.ts';
import { AI_SDK_MAJOR } from '../../adapters/hosts/vercel-ai/internal.ts';
import type { PromptRecord } from '../../adapters/hosts/vercel-ai/usage-middleware.ts';
import { readFileTool, readLoop, ScriptedModel } from '../../testing/vercel-ai/scripted-model.ts';
import { appendOnlyViolations, pairingViolations } from './support/prompt-checks.ts';

/** ai@7's steering object, as far as this test uses it (absent from the ai@6 types the root compiles against). */
interface Steering {
  steer(
    message: string,
  ): Promise<{ type: 'delivered'; stepNumber: number } | { type: 'not-delivered'; reason: string }>;
}

const STEER = 'Also read the tests folder before you answer.';

// ai@7 only: steering adds user messages between steps, and a prepareStep that rebuilds the
// history from initialMessages + responseMessages must put them back, or the SDK reports the
// message as removed and the model never reads it. Under ai@6 (no steering) this is skipped;
// the compatibility job runs it (compat/node22).
describe.runIf(AI_SDK_MAJOR === 7)('ai@7 steering through a folding loop', () => {
  it('delivers a steering message into the folded window and keeps it in every later unprojected history', async () => {
    const createSteering = (aiSdk as unknown as { experimental_createSteering: () => Steering })
      .experimental_createSteering;
    const steering = createSteering();
    const prompts: PromptRecord[] = [];
    const histories: ModelMessage[][] = [];
    const folding = await createFolding({
      store: 'memory',
      sessionId: 'steered',
      settings: { providerInputBudget: 40_000 },
      onPrompt: (record) => prompts.push(record),
    });
    let outcome: ReturnType<Steering['steer']> | undefined;
    const model = new ScriptedModel(
      readLoop(16, ({ call }) => {
        if (call === 4) outcome = steering.steer(STEER);
        return {};
      }),
    );
    // ai@7's own spec: the scripted model is a V4 model wrapped by V4 middleware.
    expect(model.model.specificationVersion).toBe('v4');
    expect(folding.wrapModel(model.model).specificationVersion).toBe('v4');
    await generateText({
      model: folding.wrapModel(model.model),
      tools: { read_file: readFileTool, ...folding.tools },
      prompt: 'Audit the repository.',
      stopWhen: stepCountIs(30),
      prepareStep: folding.composePrepareStep(({ messages }) => {
        histories.push(messages);
        return undefined;
      }),
      experimental_steering: steering,
    } as Parameters<typeof generateText>[0]);

    expect(await outcome).toMatchObject({ type: 'delivered', stepNumber: 5 });
    const steered = (messages: readonly unknown[]) =>
      messages.filter((message) => JSON.stringify(message).includes(STEER)).length;
    // The model received it at the step it was delivered to, exactly once.
    expect(steered(model.calls[5]!.prompt)).toBe(1);
    // Every history from then on holds it once, after the response of the step it followed.
    for (const history of histories.slice(5)) expect(steered(history)).toBe(1);
    for (const history of histories.slice(0, 5)) expect(steered(history)).toBe(0);
    // The window still folded (the loop is several budgets long), stayed paired and append-only.
    expect(folding.runtime.view.ledger.some((row) => row.foldsLanded > 0)).toBe(true);
    for (const record of prompts) expect(pairingViolations(record.prompt)).toEqual([]);
    expect(appendOnlyViolations(prompts, folding.runtime.view.ledger)).toEqual([]);
    await folding.dispose();
  }, 60_000);
});
