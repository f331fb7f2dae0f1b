// Consumer check (b), part 2: the AI SDK adapter in a typed generateText loop. Under this
// tsconfig the `ai` package's own .d.ts files report errors of their own (see the check's
// output); none may come from this file or from pi-fold's declarations.
import { generateText, stepCountIs, ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { createFolding, type Folding, foldingAgentSettings } from 'pi-fold/vercel-ai';
import { z } from 'zod';

const folding: Folding = await createFolding({ sessionId: 'typed-loop', store: 'memory', contextWindow: 200_000 });
const model = new MockLanguageModelV3({
  doGenerate: async () => ({
    content: [{ type: 'text', text: 'ok' }],
    finishReason: { unified: 'stop', raw: undefined },
    usage: {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 },
    },
    warnings: [],
  }),
});
const readFile = tool({
  description: 'Read a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => `contents of ${path}`,
});
const result = await generateText({
  model: folding.wrapModel(model),
  tools: { read_file: readFile, ...folding.tools },
  prepareStep: folding.composePrepareStep(async ({ stepNumber }) =>
    stepNumber > 5 ? { activeTools: ['read_file'] } : undefined,
  ),
  stopWhen: stepCountIs(3),
  prompt: 'hi',
});
const agent = new ToolLoopAgent(
  foldingAgentSettings(folding, {
    model,
    tools: { read_file: readFile },
    stopWhen: stepCountIs(3),
    onStepFinish: ({ usage }) => void usage.inputTokens,
  }),
);
export const text: string = result.text;
export const agentTools: readonly string[] = Object.keys(agent.tools);
await folding.dispose();
