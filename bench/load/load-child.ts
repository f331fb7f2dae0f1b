/**
 * One process of the load run: folds `count` sessions at once into the shared Redis store,
 * then prints one JSON line with its timings. Used by tests/hardening/load.test.ts and
 * bench/load/run-load-bench.ts.
 *
 *   node --import tsx bench/load/load-child.ts <redisUrl> <namespace> <sessionPrefix> <first> <count> <folds>
 */
import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { emptyTimings, runSession } from './session-workload.ts';

const [url, namespace, prefix, firstText, countText, foldsText] = process.argv.slice(2);
if (
  url === undefined ||
  namespace === undefined ||
  prefix === undefined ||
  firstText === undefined ||
  countText === undefined ||
  foldsText === undefined
) {
  console.error('usage: load-child.ts <redisUrl> <namespace> <sessionPrefix> <first> <count> <folds>');
  process.exit(2);
}
const keyv = new Keyv({
  store: new KeyvRedis(url, { throwOnErrors: true }),
  namespace,
  throwOnErrors: true,
  useKeyPrefix: false,
});
const store = new KeyvFoldStore({ keyv, ownsConnection: true });
const timings = emptyTimings();
const first = Number(firstText);
const sessions = Array.from({ length: Number(countText) }, (_, offset) => `${prefix}-${first + offset}`);
const start = Date.now();
await Promise.all(sessions.map((sessionId) => runSession(store, sessionId, Number(foldsText), timings)));
const wallMs = Date.now() - start;
await store.dispose();
process.stdout.write(`${JSON.stringify({ sessions, wallMs, timings })}\n`);
