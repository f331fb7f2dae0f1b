import { createHash, randomBytes } from 'node:crypto';
import { stableStringify } from '../core/util/hashing.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import type { RequestLogRow } from '../ports/request-log.ts';
import {
  type ConformanceHarness,
  check,
  checkEqual,
  checkRejects,
  checkSameBytes,
  HOSTILE_IDS,
  HOSTILE_SHAS,
  randomId,
} from './conformance-support.ts';
import { type StoreDamageHooks, storeDamageCases } from './store-damage-conformance.ts';
import { sampleEngineState, sampleFoldRecord } from './store-fixtures.ts';
import { resourceCases, type StoreResourceOptions } from './store-resource-conformance.ts';

/**
 * Backend hooks and toggles for the FoldStore conformance suite. The damage hooks
 * (`tearStored`, `copyRecordOver`) prove that damage stays with the value damaged.
 */
export interface FoldStoreConformanceOptions extends StoreDamageHooks, StoreResourceOptions {
  /** Flip a byte of a stored blob in place, to prove reads refuse it. Omit when the backend offers no way in. */
  readonly corruptBlob?: (store: FoldStore, sha256: string) => Promise<void>;
  /** Open a second store on the same data (a new instance, a new connection), to prove persistence. */
  readonly reopen?: (store: FoldStore) => Promise<FoldStore>;
  /** The store replaces a corrupted blob when the true bytes are put again (needs `corruptBlob`). @default false */
  readonly repairsOnPut?: boolean;
  /** Size of the large blob round trip. @default 1048576 */
  readonly largeBlobBytes?: number;
  /** Prefix of every test name. @default 'FoldStore conformance' */
  readonly label?: string;
}

/** Builds a fresh, empty fold store for one conformance case. */
export type StoreFactory = () => FoldStore | Promise<FoldStore>;

const sha256Of = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/**
 * The behaviour every FoldStore must have, as a runner-agnostic suite: pass your runner's
 * `test` and a factory for a fresh store; each test gets its own store and random session
 * ids, and disposes the store afterwards.
 *
 * @example foldStoreConformance({ test }, () => new MyStore(), { reopen: async () => new MyStore() })
 */
export function foldStoreConformance(
  harness: ConformanceHarness,
  createStore: StoreFactory,
  options: FoldStoreConformanceOptions = {},
): void {
  const label = options.label ?? 'FoldStore conformance';
  const define = (name: string, body: (store: FoldStore) => Promise<void>) =>
    harness.test(`${label}: ${name}`, async () => {
      const store = await createStore();
      try {
        await body(store);
      } finally {
        await store.dispose?.();
      }
    });
  blobCases(define, options);
  recordAndStateCases(define);
  damageAndReopenCases(define, options);
  storeDamageCases(define, options);
  lifecycleCases(define, options);
  resourceCases(define, options);
}

/** Registers one conformance case on a fresh store. */
type DefineCase = (name: string, body: (store: FoldStore) => Promise<void>) => void;

/** Blobs: content addressing, exact bytes, idempotence, absence, copies, malformed shas, parallel puts. */
function blobCases(define: DefineCase, options: FoldStoreConformanceOptions): void {
  define('declares specificationVersion v1 and a name', async (store) => {
    checkEqual(store.specificationVersion, 'v1', 'specificationVersion');
    check(typeof store.name === 'string' && store.name.length > 0, 'name must be a non-empty string');
  });

  define('putBlob returns the SHA-256 of the bytes (strings as UTF-8)', async (store) => {
    const text = `héllo ✓ ${randomId('text')}`;
    checkEqual(await store.putBlob(text), sha256Of(Buffer.from(text, 'utf8')), 'sha of a string');
    const bytes = randomBytes(300);
    checkEqual(await store.putBlob(bytes), sha256Of(bytes), 'sha of bytes');
  });

  define('getBlob returns exactly the stored bytes (binary, empty, unicode, large)', async (store) => {
    const samples = [
      Uint8Array.from({ length: 256 }, (_, index) => index),
      new Uint8Array(0),
      Buffer.from(`{"text":"ünïcödé \\n ✓ ${randomId('u')}"}`, 'utf8'),
      randomBytes(options.largeBlobBytes ?? 1_048_576),
    ];
    for (const [index, sample] of samples.entries()) {
      const sha = await store.putBlob(sample);
      checkSameBytes(await store.getBlob(sha), sample, `blob sample ${index}`);
    }
  });

  define('putBlob is idempotent and hasBlob tells present from absent', async (store) => {
    const bytes = randomBytes(64);
    const sha = sha256Of(bytes);
    checkEqual(await store.hasBlob(sha), false, 'hasBlob before put');
    checkEqual(await store.putBlob(bytes), sha, 'first put');
    checkEqual(await store.putBlob(Buffer.from(bytes)), sha, 'second put');
    checkEqual(await store.hasBlob(sha), true, 'hasBlob after put');
    checkSameBytes(await store.getBlob(sha), bytes, 'blob after two puts');
  });

  define('getBlob of an absent sha fails with STORE.NOT_FOUND naming the sha', async (store) => {
    const sha = sha256Of(randomBytes(16));
    const error = await checkRejects(() => store.getBlob(sha), 'STORE.NOT_FOUND', 'absent blob');
    check(error.message.includes(sha), `the NOT_FOUND message must name ${sha}: ${error.message}`);
  });

  define('stored bytes cannot be changed through the input or a returned array', async (store) => {
    const bytes = randomBytes(32);
    const original = Uint8Array.from(bytes);
    const sha = await store.putBlob(bytes);
    bytes.fill(0);
    const first = await store.getBlob(sha);
    checkSameBytes(first, original, 'after editing the input');
    first.fill(1);
    checkSameBytes(await store.getBlob(sha), original, 'after editing a returned array');
  });

  define('malformed shas are refused with STORE.INVALID_KEY', async (store) => {
    for (const sha of HOSTILE_SHAS) {
      await checkRejects(() => store.getBlob(sha as string), 'STORE.INVALID_KEY', `getBlob(${JSON.stringify(sha)})`);
      await checkRejects(() => store.hasBlob(sha as string), 'STORE.INVALID_KEY', `hasBlob(${JSON.stringify(sha)})`);
    }
  });

  define('parallel puts of new and duplicate blobs all land', async (store) => {
    const contents = Array.from({ length: 24 }, () => randomBytes(1 + Math.floor(Math.random() * 4_096)));
    const shas = await Promise.all([...contents, ...contents].map((content) => store.putBlob(content)));
    for (const [index, content] of contents.entries())
      checkSameBytes(await store.getBlob(shas[index] ?? ''), content, `parallel blob ${index}`);
  });
}

/** Fold records and engine state: round trips, immutability, sessions kept apart, hostile ids. */
function recordAndStateCases(define: DefineCase): void {
  define('fold records round-trip, list per session, and stay in their session', async (store) => {
    const [sessionA, sessionB] = [randomId('session-a'), randomId('session:b')];
    const records = [
      sampleFoldRecord(),
      sampleFoldRecord({ kind: 'chapter', origin: 'agent', provenance: 'supplied', brief: 'the agent’s own words' }),
      sampleFoldRecord({ parts: [], entryCount: 0 }),
    ];
    for (const record of records) await store.putFold(sessionA, record);
    const other = sampleFoldRecord();
    await store.putFold(sessionB, other);
    for (const record of records)
      checkEqual(
        stableStringify(await store.getFold(sessionA, record.id)),
        stableStringify(record),
        `getFold ${record.id}`,
      );
    checkEqual(await store.getFold(sessionA, other.id), undefined, 'a fold of another session');
    checkEqual(
      await store.getFold(randomId('nobody'), records[0]?.id ?? ''),
      undefined,
      'a fold of an unknown session',
    );
    const listed = (await store.listFolds(sessionA)).map((record) => stableStringify(record)).sort();
    checkEqual(
      JSON.stringify(listed),
      JSON.stringify(records.map((record) => stableStringify(record)).sort()),
      'listFolds of session A',
    );
    checkEqual((await store.listFolds(randomId('empty'))).length, 0, 'listFolds of an unknown session');
  });

  define('fold records are immutable: same record again is fine, a different one is refused', async (store) => {
    const sessionId = randomId('session');
    const record = sampleFoldRecord();
    await store.putFold(sessionId, record);
    await store.putFold(sessionId, JSON.parse(JSON.stringify(record)));
    await checkRejects(
      () => store.putFold(sessionId, { ...record, brief: 'rewritten' }),
      'STORE.WRITE_FAILED',
      'rewriting a fold record',
    );
    checkEqual(
      stableStringify(await store.getFold(sessionId, record.id)),
      stableStringify(record),
      'record after the refused rewrite',
    );
  });

  define('engine state: absent for a new session, replaced whole, kept per session', async (store) => {
    const [sessionA, sessionB] = [randomId('session'), randomId('session')];
    checkEqual(await store.loadState(sessionA), undefined, 'state of a new session');
    await store.saveState(sessionA, sampleEngineState(sessionA, 1));
    const latest = sampleEngineState(sessionA, 2);
    await store.saveState(sessionA, latest);
    await store.saveState(sessionB, sampleEngineState(sessionB, 7));
    checkEqual(stableStringify(await store.loadState(sessionA)), stableStringify(latest), 'latest state of A');
    checkEqual((await store.loadState(sessionB))?.revision, 7, 'state of B');
  });

  define('hostile session and fold ids are refused with STORE.INVALID_KEY', async (store) => {
    const record = sampleFoldRecord();
    const good = randomId('session');
    for (const id of HOSTILE_IDS) {
      const name = JSON.stringify(id) ?? String(id);
      await checkRejects(() => store.putFold(id as string, record), 'STORE.INVALID_KEY', `putFold session ${name}`);
      await checkRejects(() => store.getFold(id as string, record.id), 'STORE.INVALID_KEY', `getFold session ${name}`);
      await checkRejects(() => store.listFolds(id as string), 'STORE.INVALID_KEY', `listFolds ${name}`);
      await checkRejects(
        () => store.saveState(id as string, sampleEngineState(String(id))),
        'STORE.INVALID_KEY',
        `saveState ${name}`,
      );
      await checkRejects(() => store.loadState(id as string), 'STORE.INVALID_KEY', `loadState ${name}`);
      await checkRejects(
        () => store.putFold(good, { ...record, id: id as string }),
        'STORE.INVALID_KEY',
        `putFold fold id ${name}`,
      );
      await checkRejects(() => store.getFold(good, id as string), 'STORE.INVALID_KEY', `getFold fold id ${name}`);
    }
    checkEqual((await store.listFolds(good)).length, 0, 'nothing stored by refused calls');
  });
}

/** What the backend's own hooks allow: a corrupted blob refused (and repaired), and persistence across a reopen. */
function damageAndReopenCases(define: DefineCase, options: FoldStoreConformanceOptions): void {
  if (options.corruptBlob !== undefined) {
    const corruptBlob = options.corruptBlob;
    define('a corrupted blob is refused with STORE.HASH_MISMATCH naming the sha', async (store) => {
      const sha = await store.putBlob(randomBytes(512));
      await corruptBlob(store, sha);
      const error = await checkRejects(() => store.getBlob(sha), 'STORE.HASH_MISMATCH', 'reading a corrupted blob');
      check(error.message.includes(sha), `the HASH_MISMATCH message must name ${sha}: ${error.message}`);
      check(
        store.capabilities?.verifiesReads === true,
        'a store that refuses corrupted reads should declare capabilities.verifiesReads',
      );
    });
  }

  if (options.corruptBlob !== undefined && options.repairsOnPut === true) {
    const corruptBlob = options.corruptBlob;
    define('putting the true bytes again repairs a corrupted blob', async (store) => {
      const bytes = randomBytes(512);
      const sha = await store.putBlob(bytes);
      await corruptBlob(store, sha);
      checkEqual(await store.putBlob(bytes), sha, 'sha of the repairing put');
      checkSameBytes(await store.getBlob(sha), bytes, 'blob after the repairing put');
    });
  }

  if (options.reopen !== undefined) {
    const reopen = options.reopen;
    define('everything written is readable from a reopened store', async (store) => {
      const sessionId = randomId('session');
      const bytes = randomBytes(2_048);
      const sha = await store.putBlob(bytes);
      const record = sampleFoldRecord();
      await store.putFold(sessionId, record);
      const state = sampleEngineState(sessionId, 3);
      await store.saveState(sessionId, state);
      const second = await reopen(store);
      try {
        checkSameBytes(await second.getBlob(sha), bytes, 'blob after reopen');
        checkEqual(
          stableStringify(await second.getFold(sessionId, record.id)),
          stableStringify(record),
          'fold after reopen',
        );
        checkEqual(stableStringify(await second.loadState(sessionId)), stableStringify(state), 'state after reopen');
      } finally {
        await second.dispose?.();
      }
    });
  }
}

/** The request log (when declared) and dispose. */
function lifecycleCases(define: DefineCase, options: FoldStoreConformanceOptions): void {
  define(
    'a declared request log keeps appended rows in order, per session, and refuses hostile session ids',
    async (store) => {
      if (store.capabilities?.requestLog !== true) return;
      check(
        store.appendRequestLog !== undefined && store.readRequestLog !== undefined,
        'capabilities.requestLog needs appendRequestLog and readRequestLog',
      );
      const sessionId = randomId('session');
      const other = randomId('session');
      checkEqual((await store.readRequestLog!(sessionId)).length, 0, 'rows of a session with none');
      const first = [sampleRequestRow(1), sampleRequestRow(2)];
      const second = [sampleRequestRow(3), sampleCommitRow(3)];
      await store.appendRequestLog!(sessionId, first);
      await store.appendRequestLog!(other, [sampleRequestRow(1)]);
      await store.appendRequestLog!(sessionId, second);
      checkEqual(
        stableStringify(await store.readRequestLog!(sessionId)),
        stableStringify([...first, ...second]),
        'rows read back in append order',
      );
      checkEqual((await store.readRequestLog!(other)).length, 1, 'rows of another session');
      for (const hostile of HOSTILE_IDS)
        await checkRejects(
          () => store.appendRequestLog!(hostile as string, first),
          'STORE.INVALID_KEY',
          `append for session ${JSON.stringify(hostile)}`,
        );
      if (options.reopen !== undefined) {
        const reopened = await options.reopen(store);
        try {
          checkEqual(
            stableStringify(await reopened.readRequestLog!(sessionId)),
            stableStringify([...first, ...second]),
            'rows after reopen',
          );
        } finally {
          await reopened.dispose?.();
        }
      }
    },
  );

  define('dispose can be called twice', async (store) => {
    await store.dispose?.();
    await store.dispose?.();
  });
}

function sampleRequestRow(request: number): RequestLogRow {
  return {
    schemaVersion: 1,
    kind: 'request',
    request,
    estimatedTokens: 1_000 * request,
    budgetTokens: 60_000,
    causes: request === 3 ? ['commit'] : [],
    foldsLanded: request === 3 ? 2 : 0,
    totalChars: 4_000 * request,
    divergenceIndex: request,
    providerCacheRead: 900,
  };
}

function sampleCommitRow(request: number): RequestLogRow {
  return {
    schemaVersion: 1,
    kind: 'commit',
    request,
    epoch: 1,
    causes: ['commit'],
    foldsLanded: 2,
    estimatedTokensBefore: 3_000,
    estimatedTokensAfter: 1_200,
    prefixTokensRewritten: 2_000,
    measuredTokensAfter: 1_250,
  };
}
