import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it, test } from 'vitest';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { runLoad } from '../../bench/load/run-children.ts';
import { foldBytes, foldRecordFor, sharedBytes, stateFor } from '../../bench/load/session-workload.ts';
import { stableStringify } from '../../core/util/hashing.ts';
import { REDIS_URL_VARIABLE, serverUrl } from '../storage/support/server-urls.ts';
import { redisKeyv, runNamespace } from '../storage/support/storage-backends.ts';

/**
 * Load: many sessions fold at once into one Redis-backed store from several processes.
 * Afterwards a separate connection reads every session back: exactly its own fold records
 * (none lost, none of another session's), every blob byte for byte, its own final state.
 * Throughput and p99 are the benchmark's business (npm run bench:load), not asserted here.
 */
const long = process.env.PI_FOLD_LONG_TESTS === '1';
const SESSIONS = long ? 200 : 40;
const PROCESSES = long ? 8 : 4;
const FOLDS = long ? 10 : 6;
const server = serverUrl(REDIS_URL_VARIABLE);

if (server.url === undefined) {
  if (server.required)
    test('redis server is available for the load test', () => {
      throw new Error(server.missingReason);
    });
  else describe.skip(`load (${server.missingReason})`, () => test('skipped', () => undefined));
} else {
  const url = server.url;
  const namespace = runNamespace();
  const keyv = redisKeyv(url, namespace);
  // Keys stay under this run's own namespace; the server may be shared, so nothing is cleared.
  afterAll(async () => {
    await keyv.disconnect();
  });
  describe('hardening: concurrent sessions sharing one Redis store', () => {
    it(`${SESSIONS} sessions from ${PROCESSES} processes: no lost or crossed records`, {
      timeout: long ? 600_000 : 180_000,
    }, async () => {
      const prefix = `load-${process.pid}`;
      const { reports, wallMs } = await runLoad({
        url,
        namespace,
        prefix,
        sessions: SESSIONS,
        processes: PROCESSES,
        folds: FOLDS,
      });
      const sessions = reports.flatMap((report) => report.sessions);
      expect(new Set(sessions).size).toBe(SESSIONS);
      const store = new KeyvFoldStore({ keyv });
      let blobsCompared = 0;
      for (const sessionId of sessions) {
        const expected = Array.from({ length: FOLDS }, (_, index) => foldRecordFor(sessionId, index));
        const listed = await store.listFolds(sessionId);
        // Exactly its own records: none lost, none of another session's.
        expect(listed.map((record) => record.id).sort(), sessionId).toEqual(expected.map((record) => record.id).sort());
        for (const record of expected) {
          expect(stableStringify(await store.getFold(sessionId, record.id))).toBe(stableStringify(record));
          for (const [position, text] of [
            foldBytes(sessionId, record.epoch - 1),
            sharedBytes(record.epoch - 1),
          ].entries()) {
            const sha = createHash('sha256').update(text).digest('hex');
            expect(sha).toBe((record.parts[position] as { sha256: string }).sha256);
            expect(Buffer.from(await store.getBlob(sha)).toString('utf8')).toBe(text);
            blobsCompared += 1;
          }
        }
        const state = await store.loadState(sessionId);
        expect(state?.sessionId).toBe(sessionId);
        expect(state?.foldIds).toEqual(stateFor(sessionId, FOLDS - 1).foldIds);
      }
      const operations = reports.reduce(
        (sum, report) => sum + Object.values(report.timings).reduce((count, samples) => count + samples.length, 0),
        0,
      );
      console.info(
        `[load] ${SESSIONS} sessions × ${FOLDS} folds from ${PROCESSES} processes: ${operations} store operations in ${wallMs} ms; ${blobsCompared} blob reads byte-equal, 0 lost, 0 crossed (figures: npm run bench:load)`,
      );
    });
  });
}
