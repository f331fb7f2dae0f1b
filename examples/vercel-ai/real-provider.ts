/**
 * pi-fold with a real provider through the Vercel AI Gateway (not run in CI).
 *
 *   AI_GATEWAY_API_KEY=… MODEL=anthropic/claude-sonnet-4.5 CONTEXT_WINDOW=200000 npx tsx examples/vercel-ai/real-provider.ts
 *
 * Any ai@6 provider model works the same way (e.g. `anthropic('claude-sonnet-4-5')` from
 * `@ai-sdk/anthropic`): folding needs a model instance to wrap, and a budget.
 * The agent reads this repository's files with a small tool, so the loop grows quickly.
 */
import { readdir, readFile } from 'node:fs/promises';
import { gateway, stepCountIs, ToolLoopAgent, tool } from 'ai';
import { z } from 'zod';
import { createFolding, foldingAgentSettings } from '../../adapters/hosts/vercel-ai/index.ts';

const apiKey = process.env.AI_GATEWAY_API_KEY;
if (apiKey === undefined || apiKey.length === 0) {
  console.error('Set AI_GATEWAY_API_KEY (and optionally MODEL, CONTEXT_WINDOW, BUDGET) to run this example.');
  process.exit(1);
}
const modelId = process.env.MODEL ?? 'anthropic/claude-sonnet-4.5';
const contextWindow = Number(process.env.CONTEXT_WINDOW ?? 200_000);
// A small budget makes folding visible in a short run; omit it to use the context window.
const budget = process.env.BUDGET === undefined ? undefined : Number(process.env.BUDGET);

const folding = await createFolding({
  sessionId: `real-provider-${Date.now()}`,
  contextWindow,
  settings: budget === undefined ? {} : { providerInputBudget: budget },
});

const tools = {
  list_files: tool({
    description: 'List the files of a directory of the repository',
    inputSchema: z.object({ directory: z.string().describe('path relative to the repository root, e.g. "core"') }),
    execute: async ({ directory }) => (await readdir(directory, { recursive: true })).join('\n'),
  }),
  read_file: tool({
    description: 'Read one file of the repository',
    inputSchema: z.object({ path: z.string() }),
    execute: async ({ path }) => readFile(path, 'utf8'),
  }),
};

const agent = new ToolLoopAgent(
  foldingAgentSettings(folding, {
    model: gateway(modelId),
    instructions:
      'You review a TypeScript repository. Read files one at a time. When your context shows folded spans, use fold_context to peek at them if you need their exact text.',
    tools,
    stopWhen: stepCountIs(60),
    onStepFinish: ({ usage }) => {
      const row = folding.lastProjection()?.ledger;
      console.log(
        `step: input ${usage.inputTokens} (cache read ${usage.inputTokenDetails.cacheReadTokens ?? 0}) · ${row?.causes.length ? `rewrite: ${row.causes.join(', ')}` : 'pure append'}${row?.foldsLanded ? ` · ${row.foldsLanded} folds landed` : ''}`,
      );
    },
  }),
);

const result = await agent.generate({
  prompt: 'Read every file under core/ and explain how a fold is committed, citing file names.',
});
console.log(result.text);
const counters = folding.runtime.view.memory.counters;
console.log(
  `requests ${counters.requests} · commits ${counters.commits} · folds ${counters.foldsLanded} · rewrites ${counters.rewrites} · provider-side cache misses ${counters.providerCacheMisses}`,
);
await folding.dispose();
