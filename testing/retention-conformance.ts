import { createHash, randomBytes } from 'node:crypto';
import type { FoldStore } from '../ports/fold-store.port.ts';
import {
  type ConformanceHarness,
  check,
  checkEqual,
  checkRejects,
  HOSTILE_SHAS,
  randomId,
} from './conformance-support.ts';
import { sampleEngineState, sampleFoldRecord } from './store-fixtures.ts';

/** Backend hooks for the retention conformance suite. */
export interface RetentionConformanceOptions {
  /** Make a stored blob look last written `ageMs` ago, to prove a re-put refreshes it. Omit when the backend offers no way in. */
  readonly ageBlob?: (store: FoldStore, sha256: string, ageMs: number) => Promise<void>;
  /** Prefix of every test name. @default 'Retention conformance' */
  readonly label?: string;
}

const sha256Of = (bytes: string) => createHash('sha256').update(bytes).digest('hex');

/**
 * What `pi-fold gc` and the size caps rely on from a store that declares
 * `capabilities.retention`: sessions and blobs can be listed, a blob's size and write time
 * are known, a re-put refreshes that time, and `deleteBlob` deletes only what is older than
 * asked. Runner-agnostic like `foldStoreConformance`; each test gets a fresh store.
 *
 * @example retentionConformance({ test }, () => new MyStore(), { ageBlob: backdate })
 */
export function retentionConformance(
  harness: ConformanceHarness,
  createStore: () => FoldStore | Promise<FoldStore>,
  options: RetentionConformanceOptions = {},
): void {
  const label = options.label ?? 'Retention conformance';
  const define = (name: string, body: (store: FoldStore) => Promise<void>) =>
    harness.test(`${label}: ${name}`, async () => {
      const store = await createStore();
      try {
        check(store.capabilities?.retention === true, `${store.name} store must declare capabilities.retention`);
        for (const member of ['listSessions', 'listBlobs', 'blobInfo', 'deleteBlob'] as const)
          check(typeof store[member] === 'function', `${store.name} store declares retention but has no ${member}()`);
        await body(store);
      } finally {
        await store.dispose?.();
      }
    });

  listingCases(define);
  deletionCases(define, options);
}

/** Registers one conformance case on a fresh store. */
type DefineCase = (name: string, body: (store: FoldStore) => Promise<void>) => void;

/** What gc lists: every session, and every blob with its exact size and write time. */
function listingCases(define: DefineCase): void {
  define('listSessions names every session with a fold record or state', async (store) => {
    const withFold = randomId('retention-fold');
    const withState = randomId('retention-state');
    await store.putFold(withFold, sampleFoldRecord());
    await store.saveState(withState, sampleEngineState(withState));
    const sessions = await store.listSessions!();
    check(sessions.includes(withFold), `listSessions lacks ${withFold}, which has a fold record`);
    check(sessions.includes(withState), `listSessions lacks ${withState}, which has state`);
  });

  define('listBlobs and blobInfo report exact size and a write time of now', async (store) => {
    const text = `retention blob ${randomBytes(8).toString('hex')} ü`;
    const before = Date.now();
    const sha256 = await store.putBlob(text);
    const after = Date.now();
    const info = await store.blobInfo!(sha256);
    check(info !== undefined, 'blobInfo returned undefined for a stored blob');
    checkEqual(info.bytes, Buffer.byteLength(text, 'utf8'), 'blobInfo bytes');
    // File systems round timestamps; a second either side is still "now".
    check(
      info.touchedAt >= before - 1000 && info.touchedAt <= after + 1000,
      `touchedAt ${info.touchedAt} is not between ${before} and ${after}`,
    );
    let listed = false;
    for await (const blob of store.listBlobs!()) if (blob.sha256 === sha256) listed = blob.bytes === info.bytes;
    check(listed, 'listBlobs does not list the blob with its size');
    checkEqual(
      await store.blobInfo!(sha256Of(`absent ${randomBytes(8).toString('hex')}`)),
      undefined,
      'blobInfo of an absent blob',
    );
    for (const hostile of HOSTILE_SHAS)
      await checkRejects(() => store.blobInfo!(hostile as string), 'STORE.INVALID_KEY', `blobInfo(${String(hostile)})`);
  });
}

/** What gc deletes: only blobs older than the cut-off, a re-put refreshing an old one, and every record reachable through listAllFolds. */
function deletionCases(define: DefineCase, options: RetentionConformanceOptions): void {
  define('deleteBlob keeps a blob written at or after the cut-off and deletes an older one', async (store) => {
    const sha256 = await store.putBlob(`deletable ${randomBytes(8).toString('hex')}`);
    const info = (await store.blobInfo!(sha256))!;
    checkEqual(
      await store.deleteBlob!(sha256, { touchedBefore: info.touchedAt }),
      'kept',
      'deleteBlob with the cut-off at its write time',
    );
    check(await store.hasBlob(sha256), 'a kept blob must still be there');
    checkEqual(
      await store.deleteBlob!(sha256, { touchedBefore: info.touchedAt + 1 }),
      'deleted',
      'deleteBlob with the cut-off after its write time',
    );
    check(!(await store.hasBlob(sha256)), 'a deleted blob must be gone');
    await checkRejects(() => store.getBlob(sha256), 'STORE.NOT_FOUND', 'getBlob of a deleted blob');
    checkEqual(
      await store.deleteBlob!(sha256, { touchedBefore: Date.now() }),
      'absent',
      'deleteBlob of a deleted blob',
    );
  });

  if (options.ageBlob !== undefined) {
    const ageBlob = options.ageBlob;
    define('putting the same bytes again refreshes an old blob’s write time', async (store) => {
      const text = `refreshed ${randomBytes(8).toString('hex')}`;
      const sha256 = await store.putBlob(text);
      await ageBlob(store, sha256, 2 * 60 * 60 * 1000);
      const aged = (await store.blobInfo!(sha256))!;
      check(aged.touchedAt < Date.now() - 60 * 60 * 1000, 'ageBlob did not age the blob');
      const before = Date.now();
      await store.putBlob(text);
      const refreshed = (await store.blobInfo!(sha256))!;
      check(
        refreshed.touchedAt >= before - 1000,
        `a re-put left touchedAt at ${refreshed.touchedAt}, before the put at ${before}`,
      );
      checkEqual(
        await store.deleteBlob!(sha256, { touchedBefore: before - 1000 }),
        'kept',
        'deleteBlob of a blob just re-put',
      );
    });
  }

  define('listAllFolds, when offered, yields every record with its session', async (store) => {
    if (store.listAllFolds === undefined) return;
    const sessionId = randomId('retention-all');
    const record = sampleFoldRecord();
    await store.putFold(sessionId, record);
    let found = false;
    for await (const item of store.listAllFolds())
      if (item.sessionId === sessionId && item.record.id === record.id) found = true;
    check(found, 'listAllFolds does not yield a record just put');
  });
}
