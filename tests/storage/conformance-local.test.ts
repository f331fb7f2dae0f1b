import { join } from 'node:path';
import Keyv from 'keyv';
import { afterAll, test } from 'vitest';
import { FsEvidenceStore } from '../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import { KeyvEvidenceStore } from '../../adapters/backends/storage-keyv/keyv-evidence-store.ts';
import { KeyvFoldStore } from '../../adapters/backends/storage-keyv/keyv-fold-store.ts';
import { evidenceKey } from '../../adapters/backends/storage-keyv/keyv-records.ts';
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import {
  createSqliteEvidenceStore,
  createSqliteFoldStore,
  createSqliteKeyv,
} from '../../adapters/backends/storage-sqlite/create-sqlite-store.ts';
import { evidenceStoreConformance, foldStoreConformance } from '../../testing/index.ts';
import {
  corruptFsBlob,
  corruptKeyvBlob,
  corruptKeyvValue,
  flipByteInFile,
  fsDamageHooks,
  keyvDamageHooks,
  removeScratch,
  scratchDirectory,
} from './support/storage-backends.ts';

const scratch = await scratchDirectory('conformance');
afterAll(() => removeScratch(scratch), 120_000);
let counter = 0;
const freshPath = (name: string) => join(scratch, `${name}-${(counter += 1)}`);

type Bytes = Map<string, Map<string, Uint8Array>>;

// memory: the reference every adapter is measured against
foldStoreConformance({ test }, () => new MemoryFoldStore(), {
  label: 'memory FoldStore',
  corruptBlob: async (store, sha) => {
    const bytes = (store as unknown as { blobs: Map<string, Uint8Array> }).blobs.get(sha);
    if (bytes !== undefined) bytes[0] = (bytes[0] ?? 0) ^ 1;
  },
});
evidenceStoreConformance({ test }, ({ capBytes }) => new MemoryEvidenceStore(capBytes), {
  label: 'memory EvidenceStore',
  corruptArtifact: async (store, sessionId, sha) => {
    const bytes = (store as unknown as { artifacts: Bytes }).artifacts.get(sessionId)?.get(sha);
    if (bytes !== undefined) bytes[0] = (bytes[0] ?? 0) ^ 1;
  },
});

// fs
foldStoreConformance({ test }, () => new FsFoldStore({ root: freshPath('fs') }), {
  label: 'fs FoldStore',
  ...fsDamageHooks,
  corruptBlob: corruptFsBlob,
  repairsOnPut: true,
  reopen: async (store) => new FsFoldStore({ root: (store as FsFoldStore).layout.root }),
});
const fsEvidenceRoots = new WeakMap<object, string>();
evidenceStoreConformance(
  { test },
  ({ capBytes }) => {
    const root = freshPath('fs-evidence');
    const store = new FsEvidenceStore({ root, capBytes });
    fsEvidenceRoots.set(store, root);
    return store;
  },
  {
    label: 'fs EvidenceStore',
    corruptArtifact: async (store, sessionId, sha) =>
      flipByteInFile(join(fsEvidenceRoots.get(store) ?? '', 'evidence', sessionId, sha)),
  },
);

// sqlite (keyv 5.6 + @keyv/sqlite 4.0.8), one database file per test
const sqlitePaths = new WeakMap<object, string>();
const sqliteEvidenceKeyvs = new WeakMap<object, Keyv>();
foldStoreConformance(
  { test },
  () => {
    const path = freshPath('fold.sqlite');
    const store = createSqliteFoldStore({ path });
    sqlitePaths.set(store, path);
    return store;
  },
  {
    label: 'sqlite FoldStore',
    ...keyvDamageHooks,
    corruptBlob: corruptKeyvBlob,
    repairsOnPut: true,
    reopen: async (store) => createSqliteFoldStore({ path: sqlitePaths.get(store) ?? '' }),
  },
);
evidenceStoreConformance(
  { test },
  ({ capBytes }) => {
    const keyv = createSqliteKeyv({ path: freshPath('evidence.sqlite') });
    const store = new KeyvEvidenceStore({ keyv, ownsConnection: true, capBytes });
    sqliteEvidenceKeyvs.set(store, keyv);
    return store;
  },
  {
    label: 'sqlite EvidenceStore',
    corruptArtifact: async (store, sessionId, sha) =>
      corruptKeyvValue(sqliteEvidenceKeyvs.get(store) as Keyv, evidenceKey(sessionId, sha)),
  },
);

// any Keyv: the generic store on Keyv's own in-memory Map adapter
foldStoreConformance(
  { test },
  () => new KeyvFoldStore({ keyv: new Keyv({ throwOnErrors: true, namespace: 'pi-fold' }) }),
  { label: 'keyv(Map) FoldStore', ...keyvDamageHooks, corruptBlob: corruptKeyvBlob, repairsOnPut: true },
);
evidenceStoreConformance(
  { test },
  ({ capBytes }) => createSqliteEvidenceStore({ path: freshPath('evidence2.sqlite'), capBytes }),
  { label: 'sqlite EvidenceStore (convenience)' },
);
