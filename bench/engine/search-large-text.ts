/**
 * One search over a session whose single tool result is `megabytes` MB (`npm run bench:search
 * -- --large-mb 50`): wall time, how it ended and the process's peak RSS, for a regular
 * expression found nowhere, one found near the end, and a literal. Run alone in its process,
 * since peak RSS is the process's own high-water mark.
 */
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { FoldError } from '../../core/fold-error.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import {
  assistantEntry,
  seededRandom,
  sourceLikeText,
  toolResultEntry,
  userEntry,
} from '../../testing/synthetic-session.ts';

const LARGE_SEARCHES: { name: string; call: Record<string, unknown> }[] = [
  { name: 'regex xyz (found nowhere)', call: { pattern: 'xyz', regex: true } },
  { name: 'regex needle-\\d+ (one, near the end)', call: { pattern: 'needle-\\d+', regex: true } },
  { name: 'regex [a-z]+_77 (found nowhere)', call: { pattern: '[a-z]+_77', regex: true } },
  { name: 'regex [0-9]{7} (no literal in it)', call: { pattern: '[0-9]{7}', regex: true } },
  { name: 'literal needle-', call: { pattern: 'needle-' } },
];

function megabytesOf(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MB`;
}

export async function runLargeTextSearch(megabytes: number): Promise<void> {
  const runtime = await FoldRuntime.open({
    sessionId: 'search-large',
    settings: resolveSettings({ providerInputBudget: 200_000 }),
    foldStore: new MemoryFoldStore(),
    evidenceStore: new MemoryEvidenceStore(),
    costModel: createCharsCostModel(),
  });
  const body = sourceLikeText(seededRandom(7), megabytes * 1024 * 1024, 'large');
  const text = `${body.slice(0, body.length - 4096)} needle-4096 ${body.slice(body.length - 4096)}`;
  const call = { id: 'c1', name: 'read', arguments: { path: 'dump.log' } };
  await runtime.project([
    userEntry('u0', 'read the dump'),
    assistantEntry('a1', 'reading', [call]),
    toolResultEntry('r1', call.id, 'read', text),
    assistantEntry('a2', 'read it'),
  ]);
  console.log(`pi-fold search benchmark · one ${megabytes} MB tool result · node ${process.version}`);
  console.log(`peak RSS before searching: ${megabytesOf(process.resourceUsage().maxRSS * 1024)}`);
  console.log('RSS: at the search start, and the most it grew while the search ran (sampled every 5 ms)\n');
  const width = Math.max(...LARGE_SEARCHES.map((search) => search.name.length));
  console.log(
    `${'pattern'.padEnd(width)}  ${'wall'.padStart(8)}  ${'RSS'.padStart(7)}  ${'grew'.padStart(7)}  outcome`,
  );
  for (const search of LARGE_SEARCHES) {
    const start = process.memoryUsage.rss();
    let peak = start;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 5);
    const started = process.hrtime.bigint();
    const outcome = await runtime.act({ action: 'search', ...search.call }).then(
      (answer) => `${(answer.data as { hits: unknown[] }).hits.length} hits`,
      (error: unknown) => (FoldError.isInstance(error) ? `refused ${error.code}` : `failed ${String(error)}`),
    );
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    const columns = [
      search.name.padEnd(width),
      `${seconds.toFixed(2)} s`.padStart(8),
      megabytesOf(start).padStart(7),
      megabytesOf(peak - start).padStart(7),
      outcome,
    ];
    console.log(columns.join('  '));
  }
  await runtime.dispose();
}
