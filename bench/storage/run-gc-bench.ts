/**
 * gc benchmark (`npm run bench:gc`): build a sample store per backend — sessions of folds,
 * some nested in consolidations, plus unreferenced blobs a long-lived store accumulates —
 * then time a dry run and a real gc, and print blobs and bytes scanned and freed. Figures,
 * not pass/fail. Redis and PostgreSQL run when their PI_FOLD_TEST_* URLs are set.
 *
 *   npm run bench:gc [-- --sessions 10 --folds 40 --garbage 800 --backends fs,sqlite]
 */
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { collectGarbage } from '../../application/retention/store-gc.ts';
import { sha256Hex } from '../../core/util/hashing.ts';
import type { FoldPart, FoldRecord } from '../../ports/fold-records.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import { BENCH_BACKENDS, removeBenchScratch } from './bench-backends.ts';

const argumentsList = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const index = argumentsList.indexOf(`--${name}`);
  return index >= 0 ? (argumentsList[index + 1] ?? fallback) : fallback;
};
const SESSIONS = Number(option('sessions', '10'));
const FOLDS = Number(option('folds', '40'));
const GARBAGE = Number(option('garbage', '800'));
const BACKENDS = option('backends', 'memory,fs,sqlite,redis,postgres').split(',');
const ENTRIES_PER_FOLD = 4;

/** Text of 1–16 KiB, like tool results. */
const entryText = () => randomBytes(512 + Math.floor(Math.random() * 7680)).toString('hex');

function record(id: string, parts: FoldPart[], texts: string[]): FoldRecord {
  return {
    schemaVersion: 1,
    id,
    kind: parts.some((part) => part.kind === 'fold') ? 'consolidation' : 'tool',
    origin: 'runtime',
    firstEntryId: 'first',
    lastEntryId: 'last',
    parts,
    sourceSha256: sha256Hex(texts.map((text) => `${text}\n`).join('')),
    sourceChars: texts.reduce((sum, text) => sum + text.length, 0),
    entryCount: texts.length,
    brief: 'bench',
    provenance: 'deterministic',
    epoch: 1,
  };
}

/** Sessions of tool folds, every fourth pair consolidated, plus garbage. Returns live and garbage bytes. */
async function populate(store: FoldStore): Promise<{ liveBytes: number; garbageBytes: number }> {
  let liveBytes = 0;
  let sequence = 0;
  for (let session = 0; session < SESSIONS; session += 1) {
    const sessionId = `bench-${session}`;
    let previous: { id: string; texts: string[] } | undefined;
    for (let fold = 0; fold < FOLDS; fold += 1) {
      const texts = Array.from({ length: ENTRIES_PER_FOLD }, entryText);
      const parts: FoldPart[] = [];
      for (const text of texts) {
        parts.push({
          kind: 'entry',
          entryId: `e${(sequence += 1)}`,
          sha256: await store.putBlob(text),
          chars: text.length,
        });
        liveBytes += text.length;
      }
      const id = `fold_${(sequence += 1).toString(16).padStart(24, '0')}`;
      await store.putFold(sessionId, record(id, parts, texts));
      if (previous !== undefined && fold % 4 === 1) {
        const consolidationId = `fold_${(sequence += 1).toString(16).padStart(24, '0')}`;
        await store.putFold(
          sessionId,
          record(
            consolidationId,
            [
              { kind: 'fold', foldId: previous.id },
              { kind: 'fold', foldId: id },
            ],
            [...previous.texts, ...texts],
          ),
        );
      }
      previous = { id, texts };
    }
  }
  let garbageBytes = 0;
  for (let index = 0; index < GARBAGE; index += 1) {
    const text = entryText();
    await store.putBlob(text);
    garbageBytes += text.length;
  }
  return { liveBytes, garbageBytes };
}

const mib = (bytes: number) => `${(bytes / 1048576).toFixed(1)} MiB`;

console.log(
  `gc bench: ${SESSIONS} sessions x ${FOLDS} folds x ${ENTRIES_PER_FOLD} entries (1-16 KiB), ${GARBAGE} unreferenced blobs`,
);
console.log('backend   blobs   store      dry-run ms   gc ms   freed            rate');
for (const backend of BENCH_BACKENDS.filter((candidate) => BACKENDS.includes(candidate.name))) {
  const store = await backend.open();
  if (typeof store === 'string') {
    console.log(`${backend.name.padEnd(9)} skipped: ${store}`);
    continue;
  }
  try {
    const { liveBytes, garbageBytes } = await populate(store);
    const now = () => Date.now() + 1;
    let start = performance.now();
    const dry = await collectGarbage(store, { dryRun: true, graceMs: 0, now });
    const dryMs = performance.now() - start;
    start = performance.now();
    const real = await collectGarbage(store, { graceMs: 0, now });
    const gcMs = performance.now() - start;
    if (real.deleted.bytes !== garbageBytes || dry.collectable.bytes !== garbageBytes)
      throw new Error(`${backend.name}: freed ${real.deleted.bytes} bytes, expected ${garbageBytes}`);
    console.log(
      `${backend.name.padEnd(9)} ${String(dry.scanned.count).padStart(5)}   ${mib(liveBytes + garbageBytes).padEnd(10)} ${dryMs.toFixed(0).padStart(10)} ${gcMs.toFixed(0).padStart(7)}   ${`${real.deleted.count} / ${mib(real.deleted.bytes)}`.padEnd(16)} ${(dry.scanned.count / (gcMs / 1000)).toFixed(0)} blobs/s`,
    );
  } finally {
    await store.dispose?.();
  }
}
await removeBenchScratch();
