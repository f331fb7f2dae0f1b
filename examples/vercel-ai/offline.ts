/**
 * pi-fold with the Vercel AI SDK, fully offline: a scripted MockLanguageModelV3 reads 24
 * large files in a tool loop, folding keeps the prompt under a 30k-token budget, then the
 * model peeks at and expands the first fold it sees, and the script checks both round trips byte for byte.
 *
 * Run: npm run example:vercel-ai
 */

import { createHash } from 'node:crypto';
import { generateText, type ModelMessage, stepCountIs, tool } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { createFolding } from '../../adapters/hosts/vercel-ai/index.ts';

const READS = 24;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** About 12k chars of file-like text, the same for the same path. */
function fakeFile(path: string): string {
  const lines = [`// ${path}`];
  for (let line = 1; lines.join('\n').length < 12_000; line += 1)
    lines.push(`${String(line).padStart(4)}  export const value_${line} = parse(buffer, ${(line * 7919) % 1000});`);
  return lines.join('\n');
}

const readFile = tool({
  description: 'Read a file',
  inputSchema: z.object({ path: z.string() }),
  execute: async ({ path }) => fakeFile(path),
});

const folding = await createFolding({
  store: 'memory',
  sessionId: 'offline-example',
  settings: { providerInputBudget: 30_000 },
});

// The scripted model: read files, then peek and expand the first folded result it sees.
let chosenFold: string | undefined;
let peekCall = -10;
let expandCall = -10;
let calls = 0;
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const call = calls++;
    const promptChars = JSON.stringify(prompt).length;
    const usage = {
      inputTokens: {
        total: Math.ceil(promptChars / 3.6),
        noCache: Math.ceil(promptChars / 3.6),
        cacheRead: 0,
        cacheWrite: 0,
      },
      outputTokens: { total: 30, text: 30, reasoning: 0 },
    };
    const callTool = (toolName: string, input: unknown) => ({
      content: [{ type: 'tool-call' as const, toolCallId: `call_${call}`, toolName, input: JSON.stringify(input) }],
      finishReason: { unified: 'tool-calls' as const, raw: undefined },
      usage,
      warnings: [],
    });
    // Peek at the first folded tool result as soon as one shows, expand it on the next call.
    const folded = /\[folded tool (fold_[0-9a-f]{24})/.exec(JSON.stringify(prompt))?.[1];
    if (chosenFold === undefined && folded !== undefined) {
      chosenFold = folded;
      peekCall = call;
      return callTool('fold_context', { action: 'peek', id: chosenFold, bytes: 200_000, ephemeral: false });
    }
    if (call === peekCall + 1) {
      expandCall = call;
      return callTool('fold_context', { action: 'expand', id: chosenFold });
    }
    if (call < READS + 2) return callTool('read_file', { path: `src/module_${call}.ts` });
    return {
      content: [{ type: 'text' as const, text: 'Audit done.' }],
      finishReason: { unified: 'stop' as const, raw: undefined },
      usage,
      warnings: [],
    };
  },
});

const histories: ModelMessage[][] = [];
const result = await generateText({
  model: folding.wrapModel(model),
  system: 'You audit a repository one file at a time.',
  tools: { read_file: readFile, ...folding.tools },
  prompt: 'Audit the repository.',
  stopWhen: stepCountIs(READS + 5),
  prepareStep: folding.composePrepareStep(({ messages }) => {
    histories.push(messages);
    return undefined;
  }),
});

const { runtime } = folding;
console.log(`steps: ${result.steps.length}; model calls: ${calls}`);
for (const row of runtime.view.ledger) {
  if (row.foldsLanded > 0)
    console.log(
      `request ${row.request}: commit landed ${row.foldsLanded} folds; prompt ≈${row.estimatedTokens} of ${row.budgetTokens} tokens`,
    );
}
console.log(
  `largest prompt: ≈${Math.max(...runtime.view.ledger.map((row) => row.estimatedTokens))} tokens; raw history: ≈${Math.round(JSON.stringify(histories.at(-1)).length / 4)} tokens`,
);
console.log('folds standing:');
for (const record of runtime.view.lattice.allRecords())
  console.log(
    `  ${record.id} ${record.kind} · ${record.entryCount} entries · ${record.sourceChars} chars · ${record.brief.split('\n')[0]?.slice(0, 70)}`,
  );

// Round trip 1: the peek returned the exact stored bytes of every folded entry, each verified.
const record = runtime.view.lattice.record(chosenFold ?? '');
if (record === undefined) throw new Error('the model found no fold to peek');
const toolResults = result.steps.flatMap((step) => step.toolResults);
const peekText = String(toolResults.find((item) => item.toolCallId === `call_${peekCall}`)?.output);
const entries = folding.entries(histories.at(-1)!);
let verified = 0;
for (const part of record.parts) {
  if (part.kind !== 'entry') continue;
  const entry = entries.find((candidate) => candidate.id === part.entryId)!;
  if (sha256(entry.bytes) !== part.sha256 || !peekText.includes(`${part.sha256.slice(0, 16)} verified\n${entry.bytes}`))
    throw new Error(`peek did not return ${part.entryId} exactly`);
  verified += 1;
}
console.log(
  `peek ${record.id}: ${verified} entr${verified === 1 ? 'y' : 'ies'} returned byte for byte, sha256 verified`,
);

// Round trip 2: right after expand, the next prompt carries the original tool result again.
const lastPrompt = model.doGenerateCalls[expandCall + 1]!.prompt;
const originals = record.parts.flatMap((part) =>
  part.kind === 'entry' ? [JSON.parse(entries.find((candidate) => candidate.id === part.entryId)!.bytes)] : [],
);
for (const original of originals) {
  const resultPart = original.content[0];
  const shown = lastPrompt
    .flatMap((message) => (message.role === 'tool' ? message.content : []))
    .find((part) => part.type === 'tool-result' && part.toolCallId === resultPart.toolCallId);
  if (JSON.stringify(shown?.type === 'tool-result' ? shown.output : undefined) !== JSON.stringify(resultPart.output))
    throw new Error(`expand did not restore ${resultPart.toolCallId}`);
}
console.log(`expand ${record.id}: ${originals.length} original result(s) back in the prompt, identical`);
console.log(
  `rewrites: ${runtime.view.memory.counters.rewrites} (unattributed ${runtime.view.memory.counters.unattributedRewrites}); pure appends: ${runtime.view.memory.counters.pureAppends}`,
);
await folding.dispose();
