import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { createSqliteFoldStore } from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import { QuotaFoldStore } from '../../application/retention/quota-fold-store.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { RequestLogRow } from '../../ports/request-log.ts';
import { FaultyFoldStore } from '../../testing/faulty-stores.ts';
import { removeScratch, scratchDirectory } from './support/storage-backends.ts';

const scratch = await scratchDirectory('store-wrappers');
afterAll(() => removeScratch(scratch), 120_000);

const OPTIONAL_MEMBERS = [
  'flushBlobs',
  'dispose',
  'listSessions',
  'listAllFolds',
  'listBlobs',
  'blobInfo',
  'deleteBlob',
  'appendRequestLog',
  'readRequestLog',
] as const;

/** The optional port members a store offers (a member is offered when it is a function). */
const offered = (store: FoldStore) => OPTIONAL_MEMBERS.filter((member) => typeof store[member] === 'function');

/** The required members of a memory store and nothing else: a store with no extras at all. */
function bareStore(): FoldStore {
  const memory = new MemoryFoldStore();
  return {
    specificationVersion: 'v1',
    name: 'bare',
    putBlob: (content) => memory.putBlob(content),
    getBlob: (sha256) => memory.getBlob(sha256),
    hasBlob: (sha256) => memory.hasBlob(sha256),
    putFold: (sessionId, record) => memory.putFold(sessionId, record),
    getFold: (sessionId, foldId) => memory.getFold(sessionId, foldId),
    listFolds: (sessionId) => memory.listFolds(sessionId),
    saveState: (sessionId, state) => memory.saveState(sessionId, state),
    loadState: (sessionId) => memory.loadState(sessionId),
  };
}

const inners: readonly { readonly name: string; readonly retention: boolean; readonly fresh: () => FoldStore }[] = [
  { name: 'memory', retention: true, fresh: () => new MemoryFoldStore() },
  { name: 'fs', retention: true, fresh: () => new FsFoldStore({ root: join(scratch, `fs-${Math.random()}`) }) },
  {
    name: 'sqlite',
    retention: true,
    fresh: () => createSqliteFoldStore({ path: join(scratch, `${Math.random()}.sqlite`) }),
  },
  { name: 'bare', retention: false, fresh: bareStore },
];

const wrappers: readonly {
  readonly name: string;
  readonly needsRetention: boolean;
  readonly wrap: (inner: FoldStore) => FoldStore;
}[] = [
  { name: 'QuotaFoldStore', needsRetention: true, wrap: (inner) => new QuotaFoldStore(inner, 'wrapped-session') },
  { name: 'FaultyFoldStore', needsRetention: false, wrap: (inner) => new FaultyFoldStore(inner) },
];

const row: RequestLogRow = {
  schemaVersion: 1,
  kind: 'request',
  request: 1,
  estimatedTokens: 10,
  budgetTokens: 100,
  causes: [],
  foldsLanded: 0,
  totalChars: 40,
  divergenceIndex: 0,
};

for (const wrapper of wrappers) {
  describe(`${wrapper.name} offers exactly what the store it wraps offers`, () => {
    for (const inner of inners) {
      if (wrapper.needsRetention && !inner.retention) continue;
      test(`over ${inner.name}: the same capabilities and optional members, each reaching the inner store`, async () => {
        const store = inner.fresh();
        try {
          const wrapped = wrapper.wrap(store);
          expect(wrapped.name).toBe(store.name);
          expect(wrapped.capabilities).toBe(store.capabilities);
          expect(offered(wrapped)).toEqual(offered(store));
          if (store.appendRequestLog !== undefined) {
            await wrapped.appendRequestLog!('wrapped-session', [row]);
            expect(await store.readRequestLog!('wrapped-session')).toEqual([row]);
            expect(await wrapped.readRequestLog!('wrapped-session')).toEqual([row]);
          }
          const sha256 = await wrapped.putBlob('wrapped bytes');
          expect(new TextDecoder().decode(await store.getBlob(sha256))).toBe('wrapped bytes');
        } finally {
          await store.dispose?.();
        }
      });
    }
  });
}
