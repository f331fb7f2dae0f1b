// Consumer check (a): a plain Node ESM script, no TypeScript and no tsx, using the installed
// pi-fold package the way the README's AI SDK section does. A scripted MockLanguageModelV3
// reads large files in a generateText tool loop until a commit folds some of them, then calls
// fold_context peek on a fold; the peek must hand back every folded entry's exact bytes.
// The fold store is the filesystem store at argv[2], which check (c) then verifies and collects.
// Also: choosing store 'sqlite' without the optional @keyv/sqlite is refused by name.
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { generateText, stepCountIs, tool } from 'ai';
import * as aiTest from 'ai/test';
import { FoldError } from 'pi-fold';
import { createFoldRuntime } from 'pi-fold/runtime';
import { createFolding } from 'pi-fold/vercel-ai';
import { z } from 'zod';

const storeRoot = process.argv[2];
if (!storeRoot) throw new Error('usage: node plain-node.mjs <store dir>');
const MockLanguageModelV3 = aiTest.MockLanguageModelV3;
if (typeof MockLanguageModelV3 !== 'function') throw new Error('ai/test has no MockLanguageModelV3');

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const fileText = (path) =>
  Array.from({ length: 300 }, (_, line) => `${path}:${line} const v${line} = ${(line * 7919) % 997};`).join('\n');

const folding = await createFolding({
  sessionId: 'consumer-check',
  store: 'fs',
  storeRoot,
  settings: { providerInputBudget: 30_000 },
});
let calls = 0;
let peekCallId;
let peekedFold;
const model = new MockLanguageModelV3({
  doGenerate: async ({ prompt }) => {
    const call = calls++;
    const tokens = Math.ceil(JSON.stringify(prompt).length / 3.6);
    const usage = {
      inputTokens: { total: tokens, noCache: tokens, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 20, text: 20, reasoning: 0 },
    };
    const toolCall = (toolName, input) => ({
      content: [{ type: 'tool-call', toolCallId: `call_${call}`, toolName, input: JSON.stringify(input) }],
      finishReason: { unified: 'tool-calls', raw: undefined },
      usage,
      warnings: [],
    });
    const folded = /\[folded tool (fold_[0-9a-f]{24})/.exec(JSON.stringify(prompt))?.[1];
    if (peekedFold === undefined && folded !== undefined) {
      peekedFold = folded;
      peekCallId = `call_${call}`;
      return toolCall('fold_context', { action: 'peek', id: folded, bytes: 200_000, ephemeral: false });
    }
    if (peekedFold === undefined && call < 40) return toolCall('read_file', { path: `src/file_${call}.ts` });
    return {
      content: [{ type: 'text', text: 'done' }],
      finishReason: { unified: 'stop', raw: undefined },
      usage,
      warnings: [],
    };
  },
});

let lastHistory = [];
const result = await generateText({
  model: folding.wrapModel(model),
  tools: {
    read_file: tool({
      description: 'Read a file',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => fileText(path),
    }),
    ...folding.tools,
  },
  prompt: 'Read the files.',
  stopWhen: stepCountIs(45),
  prepareStep: folding.composePrepareStep(({ messages }) => {
    lastHistory = messages;
    return undefined;
  }),
});
if (peekedFold === undefined) throw new Error(`no fold appeared in ${calls} model calls`);
const record = folding.runtime.view.lattice.record(peekedFold);
const peekText = String(
  result.steps.flatMap((step) => step.toolResults).find((item) => item.toolCallId === peekCallId)?.output,
);
const entries = folding.entries(lastHistory);
let exact = 0;
for (const part of record.parts) {
  if (part.kind !== 'entry') continue;
  const entry = entries.find((candidate) => candidate.id === part.entryId);
  if (entry === undefined || sha256(entry.bytes) !== part.sha256 || !peekText.includes(entry.bytes))
    throw new Error(`peek of ${peekedFold} did not return entry ${part.entryId} byte for byte`);
  exact += 1;
}
if (exact === 0) throw new Error(`fold ${peekedFold} has no entries to compare`);
const commits = folding.runtime.view.ledger.filter((row) => row.foldsLanded > 0).length;
await folding.dispose();

let sqliteRefusal = 'not refused';
try {
  const opened = await createFoldRuntime({
    sessionId: 'sqlite-check',
    store: 'sqlite',
    sqlitePath: join(storeRoot, '..', 'refused.sqlite'),
  });
  await opened.dispose();
} catch (error) {
  if (
    FoldError.isInstance(error) &&
    error.code === 'HOST.PACKAGE_MISSING' &&
    error.message.includes('npm install @keyv/sqlite')
  )
    sqliteRefusal = 'refused';
  else throw error;
}
if (sqliteRefusal !== 'refused')
  throw new Error("store 'sqlite' without @keyv/sqlite was not refused with HOST.PACKAGE_MISSING");
console.log(
  `${result.steps.length} steps, ${commits} commit(s); peek ${peekedFold} returned ${exact} entr${exact === 1 ? 'y' : 'ies'} byte for byte; store 'sqlite' without @keyv/sqlite refused by name`,
);
