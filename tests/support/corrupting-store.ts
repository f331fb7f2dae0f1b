import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';

/**
 * A memory store that, once `corrupt` is switched on, hands back blobs with one bit flipped
 * by `damage`: what a failing disk or a tampering hand looks like to the engine.
 */
export function corruptingStore(damage: (bytes: Uint8Array) => void): { store: FoldStore; corrupt: () => void } {
  const honest = new MemoryFoldStore();
  let corrupting = false;
  const store: FoldStore = {
    specificationVersion: 'v1',
    name: 'corrupting',
    putBlob: (content) => honest.putBlob(content),
    getBlob: async (sha) => {
      const bytes = await honest.getBlob(sha);
      if (corrupting) damage(bytes);
      return bytes;
    },
    hasBlob: (sha) => honest.hasBlob(sha),
    putFold: (session, record) => honest.putFold(session, record),
    getFold: (session, id) => honest.getFold(session, id),
    listFolds: (session) => honest.listFolds(session),
    saveState: (session, state) => honest.saveState(session, state),
    loadState: (session) => honest.loadState(session),
  };
  return { store, corrupt: () => (corrupting = true) };
}
