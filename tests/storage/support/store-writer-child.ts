/**
 * A child process that writes to a store until it is killed, reporting each write only
 * after it completed: `blob <sha>`, `fold <session> <foldId>`, `state <session> <revision>`.
 * Used by the crash and concurrent-writer tests.
 *
 *   node --import tsx store-writer-child.ts <fs|sqlite|redis|postgres> <target> <session> <seed> [count]
 *
 * For redis and postgres the target is `<url>#<namespace>`.
 */
import { createHash } from 'node:crypto';
import { FsFoldStore } from '../../../adapters/backends/storage-fs/fs-fold-store.ts';
import { KeyvFoldStore } from '../../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { createSqliteFoldStore } from '../../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import type { FoldStore } from '../../../ports/fold-store.port.ts';
import { sampleEngineState, sampleFoldRecord } from '../../../testing/store-fixtures.ts';
import { seededRandom } from '../../../testing/synthetic-session.ts';
import { postgresKeyv, redisKeyv } from './storage-backends.ts';

const [backend, target, sessionId, seedText, countText] = process.argv.slice(2);
if (backend === undefined || target === undefined || sessionId === undefined || seedText === undefined) {
  console.error('usage: store-writer-child.ts <fs|sqlite> <target> <session> <seed> [count]');
  process.exit(2);
}
const [serverUrl = '', namespace = ''] = target.split('#');
const store: FoldStore =
  backend === 'fs'
    ? new FsFoldStore({ root: target })
    : backend === 'sqlite'
      ? createSqliteFoldStore({ path: target })
      : new KeyvFoldStore({
          keyv: (backend === 'redis' ? redisKeyv : postgresKeyv)(serverUrl, namespace),
          ownsConnection: true,
        });
const random = seededRandom(Number(seedText));
const limit = countText === undefined ? Number.POSITIVE_INFINITY : Number(countText);
const report = (line: string) => process.stdout.write(`${line}\n`);

/**
 * Deterministic bytes for (seed, index): two writers with the same seed write the same
 * blobs. Filling with a repeated 32-byte block is cheap, so the child spends its time in
 * writes and fsyncs, where the kills should land.
 */
function blobBytes(index: number): Buffer {
  const size = 1 + Math.floor(random() * 256 * 1024);
  return Buffer.alloc(size, createHash('sha256').update(`${seedText}:${index}`).digest());
}

report('ready');
for (let index = 0; index < limit; index += 1) {
  report(`blob ${await store.putBlob(blobBytes(index))}`);
  if (index % 3 === 0) {
    const record = sampleFoldRecord({ epoch: index });
    await store.putFold(sessionId, record);
    report(`fold ${sessionId} ${record.id}`);
  }
  if (index % 4 === 0) {
    await store.saveState(sessionId, sampleEngineState(sessionId, index + 1));
    report(`state ${sessionId} ${index + 1}`);
  }
}
await store.dispose?.();
report('done');
