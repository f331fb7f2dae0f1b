/**
 * Load benchmark: many sessions fold at once into one Redis-backed store from several
 * processes; prints throughput and p50/p99/max latency per store operation. Figures only:
 * the correctness of the same workload is asserted by tests/hardening/load.test.ts.
 *
 *   PI_FOLD_TEST_REDIS_URL=redis://127.0.0.1:6390 npm run bench:load -- [--sessions 200] [--processes 4] [--folds 10]
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { runLoad } from './run-children.ts';
import { OPERATIONS, summarize } from './session-workload.ts';

const { values } = parseArgs({
  options: {
    url: { type: 'string', default: process.env.PI_FOLD_TEST_REDIS_URL },
    sessions: { type: 'string', default: '200' },
    processes: { type: 'string', default: '4' },
    folds: { type: 'string', default: '10' },
  },
});
if (values.url === undefined || values.url === '') {
  console.error('set PI_FOLD_TEST_REDIS_URL (see .ci/storage-servers.sh) or pass --url redis://host:port');
  process.exit(2);
}
const sessions = Number(values.sessions);
const processes = Number(values.processes);
const folds = Number(values.folds);
const namespace = `pi-fold-bench-${randomBytes(6).toString('hex')}`;
const { reports, wallMs } = await runLoad({ url: values.url, namespace, prefix: 'bench', sessions, processes, folds });

console.log(
  `pi-fold load benchmark: ${sessions} sessions × ${folds} folds, ${processes} processes, one Redis store (${values.url}), wall ${wallMs} ms`,
);
console.log('operation   count    ops/s    p50 ms   p99 ms   max ms');
let total = 0;
for (const operation of OPERATIONS) {
  const samples = reports.flatMap((report) => report.timings[operation]);
  const figures = summarize(samples, wallMs);
  total += figures.count;
  console.log(
    `${operation.padEnd(10)} ${String(figures.count).padStart(6)} ${figures.perSecond.toFixed(0).padStart(8)} ${figures.p50.toFixed(2).padStart(9)} ${figures.p99.toFixed(2).padStart(8)} ${figures.max.toFixed(2).padStart(8)}`,
  );
}
console.log(
  `all        ${String(total).padStart(6)} ${((total * 1000) / wallMs).toFixed(0).padStart(8)}   (whole folds: ${((sessions * folds * 1000) / wallMs).toFixed(0)}/s)`,
);

// The run's keys live under its own namespace; remove them so repeated runs do not grow the server.
const keyv = new Keyv({ store: new KeyvRedis(values.url), namespace, useKeyPrefix: false });
let removed = 0;
const iterate = keyv.iterator as unknown as () => AsyncGenerator<[string, unknown]>;
for await (const [key] of iterate()) {
  await keyv.delete(key);
  removed += 1;
}
await keyv.disconnect();
console.log(`(removed ${removed} benchmark keys)`);
