/**
 * The offline demo: a long, tool-heavy agent session folds itself instead of compacting.
 *
 *   npm run demo                # every request, then totals and a verified round trip
 *   npm run demo -- --quiet     # only commits and totals
 *   npm run demo -- --requests 500 --window 272000
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFoldRuntime } from '../../composition/index.ts';
import { readFoldSource } from '../../core/store/fold-source.ts';
import { SyntheticSession } from '../../testing/synthetic-session.ts';
import { parseDemoArguments } from './demo-arguments.ts';
import { type DemoTotals, formatRequestLine, formatTotals } from './demo-report.ts';

const options = parseDemoArguments(process.argv.slice(2));
// The simulated provider counts tokens a little more densely than chars/4, like real tokenizers on code.
const providerTokens = (chars: number) => Math.ceil(chars / 3.6) + 1_200;

// The default store (files, content-addressed and verified), in a fresh folder per run so
// every demo starts from an empty session; --store-root keeps it somewhere of your choice.
const storeRoot = options.storeRoot ?? mkdtempSync(join(tmpdir(), 'pi-fold-demo-'));
const composed = await createFoldRuntime({ sessionId: `demo-${options.seed}`, store: 'fs', storeRoot });
const { runtime } = composed;
const session = new SyntheticSession({ seed: options.seed, resultChars: [5_000, 40_000] });
const totals: DemoTotals = {
  requests: 0,
  commits: 0,
  foldsLanded: 0,
  peak: 0,
  occupancySum: 0,
  promptTokens: 0,
  cacheRead: 0,
  byCause: new Map(),
};
let previousPrompt = 0;

console.log(
  `pi-fold demo · ${options.requests} requests · window ${options.window} tokens · ${runtime.view.foldStore.name} store at ${storeRoot}\n`,
);
for (let request = 1; request <= options.requests; request += 1) {
  session.step();
  const result = await runtime.project(session.entries, { contextWindow: options.window, overheadChars: 4_000 });
  const { ledger } = result;
  const prompt = providerTokens(ledger.totalChars);
  // A positional prefix cache: what precedes the first changed message is served from cache.
  const keptChars = result.messages
    .slice(0, ledger.divergenceIndex)
    .reduce((sum, message) => sum + message.bytes.length, 0);
  const cacheRead = request === 1 ? 0 : Math.min(previousPrompt, providerTokens(keptChars));
  runtime.recordUsage({ input: prompt - cacheRead, cacheRead, cacheWrite: 0, output: 350 });
  previousPrompt = prompt;
  const occupancy = ledger.estimatedTokens / ledger.budgetTokens;
  totals.requests += 1;
  totals.peak = Math.max(totals.peak, ledger.preCommitTokens / ledger.budgetTokens, occupancy);
  totals.occupancySum += occupancy;
  totals.promptTokens += prompt;
  totals.cacheRead += cacheRead;
  if (ledger.foldsLanded > 0) {
    totals.commits += 1;
    totals.foldsLanded += ledger.foldsLanded;
  }
  for (const cause of ledger.causes) totals.byCause.set(cause, (totals.byCause.get(cause) ?? 0) + 1);
  for (const warning of result.warnings) console.warn(warning);
  if (!options.quiet || ledger.causes.length > 0) console.log(formatRequestLine(ledger, prompt, cacheRead));
}
console.log(formatTotals(totals, runtime.view.memory.counters));

// Round trip: peek the deepest fold, then expand its outermost ancestor and compare every byte.
const records = [...runtime.view.lattice.allRecords()];
const depthOf = (id: string): number => {
  const parent = runtime.view.lattice.parentOf(id);
  return parent === undefined ? 0 : 1 + depthOf(parent);
};
const deepest = records.reduce((best, record) => (depthOf(record.id) > depthOf(best.id) ? record : best), records[0]!);
const peek = await runtime.act({ action: 'peek', id: deepest.id, bytes: 1_200 }, { toolCallId: 'demo-peek' });
console.log(
  `\npeek ${deepest.id} (depth ${depthOf(deepest.id)}, ${deepest.kind}) — first lines of the verified answer:`,
);
console.log(
  peek.text
    .split('\n')
    .slice(0, 4)
    .map((line) => `  ${line.slice(0, 150)}`)
    .join('\n'),
);

let root = deepest.id;
while (runtime.view.lattice.parentOf(root) !== undefined) root = runtime.view.lattice.parentOf(root)!;
const source = await readFoldSource(runtime.view.foldStore, (id) => runtime.view.lattice.record(id), root);
const start = runtime.view.index.positionOf(runtime.view.lattice.record(root)!.firstEntryId)!;
const original = session.entries.slice(start, start + source.length);
const identical = source.every(
  (entry, position) => entry.bytes === original[position]!.bytes && entry.entryId === original[position]!.id,
);
const bytes = source.reduce((sum, entry) => sum + Buffer.byteLength(entry.bytes), 0);
console.log(
  `\nexpand ${root} (root of that fold): ${source.length} entries, ${bytes} bytes, every entry and the whole source re-hashed against SHA-256`,
);
console.log(
  identical
    ? `round trip verified: byte for byte identical to what the host had ✔`
    : `round trip FAILED: bytes differ ✘`,
);

// And through the agent's own verb: expand the newest visible chapter, send one more request,
// and check that the window now carries the host's exact entries where the brief was.
const chapter = [...runtime.view.visibleFolds].reverse().find((placed) => placed.record.kind === 'chapter');
let expandedOk = true;
if (chapter !== undefined) {
  const answer = await runtime.act({ action: 'expand', id: chapter.record.id });
  console.log(`\n${answer.text.split('\n')[0]}`);
  session.step();
  const after = await runtime.project(session.entries, { contextWindow: options.window, overheadChars: 4_000 });
  const shown = after.messages.filter(
    (message) =>
      message.kind === 'entry' &&
      chapter.first <= runtime.view.index.positionOf(message.entryId)! &&
      runtime.view.index.positionOf(message.entryId)! <= chapter.last,
  );
  expandedOk =
    shown.length > 0 &&
    shown.every(
      (message) =>
        message.kind === 'entry' &&
        message.bytes === session.entries[runtime.view.index.positionOf(message.entryId)!]!.bytes,
    );
  console.log(
    `next request (${after.ledger.causes.join('+')}): ${shown.length} raw entries of ${chapter.record.id} back in the window, ${expandedOk ? 'byte for byte identical ✔' : 'MISMATCH ✘'}`,
  );
}
await composed.dispose();
// The store outlives the run: say where it is and how to look at it.
console.log(
  `\nthe session's store is kept in ${storeRoot}${options.storeRoot === undefined ? ' (a fresh temporary folder; --store-root DIR chooses one)' : ''}\nsee what folding did, as one HTML page: npx pi-fold view ${storeRoot} --out pi-fold-demo.html`,
);
if (!identical || !expandedOk) process.exitCode = 1;
