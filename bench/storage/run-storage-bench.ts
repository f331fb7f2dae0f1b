/**
 * Storage micro-benchmark (`npm run bench:storage`): put and verified-get latency and
 * verified-read throughput per backend, each as a ratio against hashing the same bytes with
 * node:crypto (the floor any verifying store pays). Figures, not pass/fail. Redis and
 * PostgreSQL run when PI_FOLD_TEST_REDIS_URL / PI_FOLD_TEST_POSTGRES_URL are set.
 *
 *   npm run bench:storage [-- --sizes 4096,65536,1048576 --rounds 40]
 */
import { createHash, randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { BENCH_BACKENDS, removeBenchScratch } from './bench-backends.ts';

const argumentsList = process.argv.slice(2);
const option = (name: string, fallback: string) => {
  const index = argumentsList.indexOf(`--${name}`);
  return index >= 0 ? (argumentsList[index + 1] ?? fallback) : fallback;
};
const SIZES = option('sizes', '4096,65536,1048576').split(',').map(Number);
const ROUNDS = Number(option('rounds', '40'));

const median = (values: number[]) =>
  [...values].sort((left, right) => left - right)[Math.floor(values.length / 2)] ?? Number.NaN;

async function timeEach(
  payloads: readonly Buffer[],
  action: (payload: Buffer, index: number) => unknown,
): Promise<number[]> {
  const times: number[] = [];
  for (const [index, payload] of payloads.entries()) {
    const start = performance.now();
    await action(payload, index);
    times.push(performance.now() - start);
  }
  return times;
}

const format = (milliseconds: number) =>
  milliseconds < 1 ? `${(milliseconds * 1000).toFixed(0)} µs` : `${milliseconds.toFixed(2)} ms`;
const rows: string[][] = [
  [
    'backend',
    'size',
    'hash (node:crypto)',
    'put',
    'put ÷ hash',
    'verified get',
    'get ÷ hash',
    'verified read MB/s',
    'hash MB/s',
  ],
];

for (const size of SIZES) {
  const payloads = Array.from({ length: ROUNDS }, () => randomBytes(size));
  // Warm the hash path, then take its median as the baseline for this size.
  for (const payload of payloads.slice(0, 5)) createHash('sha256').update(payload).digest('hex');
  const hashMedian = median(await timeEach(payloads, (payload) => createHash('sha256').update(payload).digest('hex')));
  const hashThroughput = size / 1e6 / (hashMedian / 1e3);
  for (const backend of BENCH_BACKENDS) {
    const store = await backend.open();
    if (typeof store === 'string') {
      if (size === SIZES[0]) console.log(`(${backend.name} skipped: ${store})`);
      continue;
    }
    try {
      const shas: string[] = [];
      const putTimes = await timeEach(payloads, async (payload) => shas.push(await store.putBlob(payload)));
      const getTimes = await timeEach(payloads, (_payload, index) => store.getBlob(shas[index] ?? ''));
      const putMedian = median(putTimes);
      const getMedian = median(getTimes);
      rows.push([
        backend.name,
        `${size / 1024} KiB`,
        format(hashMedian),
        format(putMedian),
        `${(putMedian / hashMedian).toFixed(1)}×`,
        format(getMedian),
        `${(getMedian / hashMedian).toFixed(1)}×`,
        (size / 1e6 / (getMedian / 1e3)).toFixed(0),
        hashThroughput.toFixed(0),
      ]);
    } finally {
      await store.dispose?.();
    }
  }
}

await removeBenchScratch();
const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
console.log(`\npi-fold storage bench · ${ROUNDS} rounds per size · medians · Node ${process.version}\n`);
for (const row of rows) console.log(row.map((cell, column) => cell.padStart(widths[column] ?? 0)).join('  '));
