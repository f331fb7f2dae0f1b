/**
 * Engine scaling micro-benchmarks (LAB §6), run by `npm run bench:engine` after the engine
 * benchmark. Absolute times drift on a shared machine, so every figure is printed as a ratio
 * to a stated reference: projection time per request against the 1,000-entry figure, and
 * verified reads against sha256 of the same bytes by node:crypto.
 */
import { createHash } from 'node:crypto';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { PEEK_MAX_BYTES } from '../../core/actions/action-arguments.ts';
import { peekDocument } from '../../core/actions/peek-action.ts';
import { FoldRuntime } from '../../core/fold-runtime.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { resolveSettings } from '../../core/settings/settings.ts';
import type { FoldRecord } from '../../ports/fold-records.ts';
import type { TranscriptEntry } from '../../ports/transcript-source.port.ts';
import { MemoryTranscriptSource } from '../../testing/memory-transcript-source.ts';
import {
  assistantEntry,
  seededRandom,
  sourceLikeText,
  toolResultEntry,
  userEntry,
} from '../../testing/synthetic-session.ts';
import { medianSeconds } from './median-timing.ts';

const SIZES = [1_000, 2_000, 5_000, 10_000, 20_000] as const;
const MEASURED_REQUESTS = 400;
const WARM_UP_REQUESTS = 20;

// As in the engine benchmark: the fixed band, so the pure-append series folds nothing (the
// cost default lands every mark once the window crosses the price list's long-context line),
// and spill off up to 256 KiB, so the verified-read fold holds its 60–120 KB results raw.
async function openRuntime(budget: number): Promise<FoldRuntime> {
  return FoldRuntime.open({
    sessionId: `scaling-${budget}-${Math.random().toString(36).slice(2)}`,
    settings: resolveSettings({
      providerInputBudget: budget,
      scheduling: 'band',
      spill: { thresholdBytes: 262_144, keepBytes: 4_096 },
    }),
    foldStore: new MemoryFoldStore(),
    costModel: createCharsCostModel(),
  });
}

/** One agent step: a call and its result of 250–550 chars (a chatty session's entries). */
function step(random: () => number, number: number): TranscriptEntry[] {
  const call = { id: `c${number}`, name: 'read', arguments: { path: `src/f${number}.c` } };
  return [
    assistantEntry(`a${number}`, `step ${number}`, [call]),
    toolResultEntry(
      `r${number}`,
      call.id,
      'read',
      sourceLikeText(random, 250 + Math.floor(random() * 300), `f${number}`),
    ),
  ];
}

function percentile(values: readonly number[], rank: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((rank / 100) * sorted.length) - 1))]!;
}

/** How the host hands its branch: the whole array each request, or a TranscriptSource's appended reads. */
type HandOver = 'whole branch' | 'appended reads';

/**
 * Per-request projection time against transcript size: one session grows step by step, as
 * an agent's does (a whole transcript arriving at once could not be folded: nothing in it
 * has been seen yet), projecting before every request. When it reaches each size, the next
 * requests are timed. `budgetTokens` decides whether folding is at work; `handOver` whether
 * the engine compares the whole branch with what it holds (an array) or is handed only what
 * was appended (a TranscriptSource, as the AI SDK adapter's is).
 */
async function projectionSeries(
  budgetTokens: number,
  handOver: HandOver,
): Promise<Map<number, { p50: number; p99: number; folds: number }>> {
  const runtime = await openRuntime(budgetTokens);
  const random = seededRandom(budgetTokens % 1000);
  const entries: TranscriptEntry[] = [userEntry('u0', 'go')];
  const source = new MemoryTranscriptSource(runtime.view.sessionId, entries);
  const branch = handOver === 'whole branch' ? entries : source;
  const series = new Map<number, { p50: number; p99: number; folds: number }>();
  let number = 0;
  let folds = 0;
  let timings: number[] | undefined;
  let measuring: number | undefined;
  let sinceReached = 0;
  for (const size of SIZES) {
    while (entries.length < size || measuring !== undefined) {
      const added = step(random, ++number);
      entries.push(...added);
      source.append(...added);
      const started = process.hrtime.bigint();
      const result = await runtime.project(branch);
      const elapsed = Number(process.hrtime.bigint() - started) / 1e6;
      runtime.recordUsage({ input: result.ledger.estimatedTokens, cacheRead: 0, cacheWrite: 0, output: 20 });
      folds += result.ledger.foldsLanded;
      if (measuring === undefined && entries.length >= size) {
        measuring = size;
        timings = [];
        sinceReached = 0;
        continue;
      }
      if (measuring === undefined) continue;
      sinceReached += 1;
      if (sinceReached > WARM_UP_REQUESTS) timings!.push(elapsed);
      if (timings!.length === MEASURED_REQUESTS) {
        series.set(measuring, { p50: percentile(timings!, 50), p99: percentile(timings!, 99), folds });
        measuring = undefined;
        break;
      }
    }
  }
  return series;
}

/**
 * Verified-read throughput: a peek and an expand of the same fold (each verifies every blob
 * it serves), against node:crypto sha256 of the bytes each serves. The fold is the largest
 * one an expand accepts (outside-in, within budget); an expand is undone between rounds by
 * clearing the runtime's expanded set: the benchmark times verification, not a refold.
 */
async function verifiedReads(): Promise<{
  peekBytes: number;
  expandBytes: number;
  peekRatio: number;
  expandRatio: number;
  peekMBps: number;
  expandMBps: number;
  note: string;
}> {
  const runtime = await openRuntime(400_000);
  const random = seededRandom(11);
  const entries: TranscriptEntry[] = [userEntry('u0', 'go')];
  for (let number = 1; number <= 60; number += 1) {
    const call = { id: `c${number}`, name: 'read', arguments: { path: `f${number}` } };
    entries.push(
      assistantEntry(`a${number}`, `note ${number}`, [call]),
      toolResultEntry(
        `r${number}`,
        call.id,
        'read',
        sourceLikeText(random, 60_000 + Math.floor(random() * 60_000), 'x'),
      ),
    );
    const result = await runtime.project(entries);
    runtime.recordUsage({ input: result.ledger.estimatedTokens, cacheRead: 0, cacheWrite: 0, output: 10 });
  }
  const store = runtime.view.foldStore;
  const entryBytes = (id: string): number =>
    runtime.view.lattice.record(id)!.parts.reduce((sum, part) => sum + (part.kind === 'entry' ? part.chars : 0), 0);
  // A peek is capped at PEEK_MAX_BYTES: only a fold whose whole one-level document fits can be read in one call.
  const fitsOnePeek = async (record: FoldRecord): Promise<boolean> =>
    (await peekDocument(runtime.view, record)).length <= PEEK_MAX_BYTES;
  const candidates: FoldRecord[] = [];
  for (const record of [...runtime.view.lattice.allRecords()].sort((a, b) => entryBytes(b.id) - entryBytes(a.id)))
    if (await fitsOnePeek(record)) candidates.push(record);
  let target = candidates[0]!;
  let note = '';
  // Through the facade, as a person would: refold it, land only that mark, project again.
  const undoExpand = async (id: string): Promise<void> => {
    await runtime.act({ action: 'refold', id });
    runtime.requestCommit('user-fold', [id]);
    await runtime.project(entries);
  };
  let expandable = false;
  for (const candidate of candidates) {
    try {
      await runtime.act({ action: 'expand', id: candidate.id });
      await undoExpand(candidate.id);
      target = candidate;
      expandable = true;
      break;
    } catch {
      // Nested or over budget: try the next largest.
    }
  }
  if (!expandable) note = ' (no fold could be expanded: expand not measured)';
  const document = (await peekDocument(runtime.view, target)).bytes();
  const blobs = Buffer.concat(
    await Promise.all(
      target.parts
        .filter((part) => part.kind === 'entry')
        .map((part) => store.getBlob((part as { sha256: string }).sha256)),
    ),
  );
  const peekHash = await medianSeconds(30, async () => createHash('sha256').update(document).digest());
  const peekSeconds = await medianSeconds(30, () =>
    runtime.act({ action: 'peek', id: target.id, offset: 0, bytes: document.length }),
  );
  const expandHash = await medianSeconds(30, async () => createHash('sha256').update(blobs).digest());
  const expandSeconds = expandable
    ? await medianSeconds(
        30,
        () => runtime.act({ action: 'expand', id: target.id }),
        () => undoExpand(target.id),
      )
    : Number.NaN;
  return {
    peekBytes: document.length,
    expandBytes: blobs.length,
    peekRatio: peekHash / peekSeconds,
    expandRatio: expandHash / expandSeconds,
    peekMBps: document.length / 1e6 / peekSeconds,
    expandMBps: blobs.length / 1e6 / expandSeconds,
    note,
  };
}

const lines: string[] = [
  `pi-fold engine scaling benchmark · node ${process.version} · ${MEASURED_REQUESTS} timed requests per size after ${WARM_UP_REQUESTS} warm-up`,
  '',
];
for (const [mode, budget, handOver] of [
  ['pure append (budget 50M tokens, nothing folds)', 50_000_000, 'whole branch'],
  ['managed (budget 100k tokens, folding at work)', 100_000, 'whole branch'],
  ['managed (budget 100k tokens, folding at work)', 100_000, 'appended reads'],
] as const) {
  lines.push(
    `projection per request, ${mode}, ${handOver === 'whole branch' ? 'the whole branch handed as an array (every held position compared)' : 'appended reads through a TranscriptSource (only new entries checked)'}`,
  );
  lines.push(
    `${'entries'.padStart(8)}  ${'p50 ms'.padStart(9)}  ${'p99 ms'.padStart(9)}  ${'p50 ÷ 1k'.padStart(9)}  ${'p99 ÷ 1k'.padStart(9)}  folds so far`,
  );
  let reference: { p50: number; p99: number } | undefined;
  const series = await projectionSeries(budget, handOver);
  for (const size of SIZES) {
    const times = series.get(size)!;
    reference ??= times;
    lines.push(
      `${size.toLocaleString('en-US').padStart(8)}  ${times.p50.toFixed(3).padStart(9)}  ${times.p99.toFixed(3).padStart(9)}  ${`${(times.p50 / reference.p50).toFixed(2)}×`.padStart(9)}  ${`${(times.p99 / reference.p99).toFixed(2)}×`.padStart(9)}  ${times.folds}`,
    );
  }
  lines.push('');
}
const reads = await verifiedReads();
lines.push(
  'verified reads of one fold; reference: node:crypto sha256 of the same bytes (ratio = verified MB/s ÷ hashing MB/s)',
);
lines.push(
  `  peek    ${(reads.peekBytes / 1e3).toFixed(0).padStart(6)} KB  ${reads.peekMBps.toFixed(0).padStart(6)} MB/s  = ${reads.peekRatio.toFixed(2)}× hashing throughput`,
);
lines.push(
  `  expand  ${(reads.expandBytes / 1e3).toFixed(0).padStart(6)} KB  ${reads.expandMBps.toFixed(0).padStart(6)} MB/s  = ${reads.expandRatio.toFixed(2)}× hashing throughput (the whole action: budget trial on a lattice copy, verification, state)${reads.note}`,
);
console.log(lines.join('\n'));
