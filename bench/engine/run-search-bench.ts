/**
 * Search under hostile patterns (`npm run bench:search`). Figures, not pass/fail: for each
 * pattern, the wall time of one search over about 2.4 MB of folded text, how it ended, and the
 * event loop's longest block while it ran. The bound it is held to is the one docs/behaviour.md
 * states under `search`: no pattern blocks the loop; a regular expression gets
 * SEARCH_REGEX_TIME_LIMIT_MS of matching on a worker, then is refused. `--large-mb N` measures
 * instead one search over a single tool result of N MB (search-large-text.ts).
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldError } from '../../core/fold-error.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { SEARCH_REGEX_TIME_LIMIT_MS } from '../../core/search/regex-worker.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import { projectFoldedReads } from '../../testing/folded-reads.ts';
import { runLargeTextSearch } from './search-large-text.ts';

const ALPHANUMERICS = [...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'];

const SEARCHES: { name: string; call: Record<string, unknown> }[] = [
  { name: 'literal found nowhere', call: { pattern: 'a string found in no entry' } },
  { name: 'literal, 511 a then b', call: { pattern: `${'a'.repeat(511)}b`, ignoreCase: true } },
  { name: 'regex socket (parse|retry)', call: { pattern: 'socket (parse|retry)', regex: true } },
  { name: 'regex found nowhere', call: { pattern: 'found [n]owhere', regex: true } },
  // The text holds no Q: the required literal is looked for first, and nothing is matched.
  { name: 'regex 500 dots then Q', call: { pattern: `${'.'.repeat(500)}Q`, regex: true } },
  // Ending in a class, these require no literal, so the linear engine walks the whole text.
  { name: 'regex 100 dots then [QZ]', call: { pattern: `${'.'.repeat(100)}[QZ]`, regex: true } },
  { name: 'regex 500 dots then [QZ]', call: { pattern: `${'.'.repeat(500)}[QZ]`, regex: true } },
  { name: 'regex (\\w+\\s?)+[!?]', call: { pattern: '(\\w+\\s?)+[!?]', regex: true } },
  { name: 'regex 62-way alternation', call: { pattern: `(?:${ALPHANUMERICS.join('|')})+[!?]`, regex: true } },
];

async function foldedRuntime(): Promise<FoldRuntime> {
  const runtime = await FoldRuntime.open({
    sessionId: 'search-bench',
    settings: resolveSettings({ providerInputBudget: 200_000, scheduling: 'band' }),
    foldStore: new MemoryFoldStore(),
    costModel: createCharsCostModel(),
  });
  await projectFoldedReads(runtime, { seed: 29, steps: 130 });
  return runtime;
}

async function timedSearch(runtime: FoldRuntime, call: Record<string, unknown>) {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const started = process.hrtime.bigint();
  const outcome = await runtime.act({ action: 'search', ...call }).then(
    (answer) => `${(answer.data as { hits: unknown[] }).hits.length} hits`,
    (error: unknown) => (FoldError.isInstance(error) ? `refused ${error.code}` : `failed ${String(error)}`),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  delay.disable();
  return { outcome, seconds, longestBlockMs: delay.max / 1e6 };
}

const largeFlag = process.argv.indexOf('--large-mb');
if (largeFlag >= 0) {
  await runLargeTextSearch(Number(process.argv[largeFlag + 1] ?? 50));
  process.exit(0);
}

const runtime = await foldedRuntime();
const warm = await runtime.act({ action: 'search', pattern: 'a string found in no entry' });
const folded = (warm.data as { bytesScanned: number }).bytesScanned;
console.log(`pi-fold search benchmark · node ${process.version}`);
console.log(
  `${(folded / 1e6).toFixed(1)} MB folded, warm cache; bound: ${SEARCH_REGEX_TIME_LIMIT_MS / 1000} s of regex matching, off the event loop\n`,
);
const width = Math.max(...SEARCHES.map((search) => search.name.length));
console.log(`${'pattern'.padEnd(width)}  ${'wall'.padStart(8)}  ${'loop block'.padStart(10)}  outcome`);
for (const search of SEARCHES) {
  const { outcome, seconds, longestBlockMs } = await timedSearch(runtime, search.call);
  console.log(
    `${search.name.padEnd(width)}  ${`${seconds.toFixed(2)} s`.padStart(8)}  ${`${longestBlockMs.toFixed(0)} ms`.padStart(10)}  ${outcome}`,
  );
}
