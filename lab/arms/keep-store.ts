import { FsEvidenceStore } from '../../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../../adapters/backends/storage-fs/fs-fold-store.ts';
import type { EvidenceStore } from '../../ports/evidence-store.port.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { SeenSpill } from './byte-audit.ts';

/**
 * Copy one session of a fold arm's in-memory stores into a filesystem store at `root`: its
 * fold records with every blob they name, its engine state, its request log and the
 * artifacts of the spills its windows showed. What `pi-fold view <root>` then opens is what
 * the arm folded, byte for byte (the fs store re-hashes every blob on read).
 */
export async function keepArmStore(
  from: { readonly foldStore: FoldStore; readonly evidenceStore: EvidenceStore },
  sessionId: string,
  spills: Iterable<SeenSpill>,
  root: string,
): Promise<void> {
  const foldStore = new FsFoldStore({ root });
  const evidenceStore = new FsEvidenceStore({ root });
  try {
    for (const record of await from.foldStore.listFolds(sessionId)) {
      for (const part of record.parts)
        if (part.kind === 'entry') await foldStore.putBlob(await from.foldStore.getBlob(part.sha256));
      await foldStore.putFold(sessionId, record);
    }
    const state = await from.foldStore.loadState(sessionId);
    if (state !== undefined) await foldStore.saveState(sessionId, state);
    const log = (await from.foldStore.readRequestLog?.(sessionId)) ?? [];
    if (log.length > 0) await foldStore.appendRequestLog(sessionId, log);
    for (const spill of spills)
      await evidenceStore.put(sessionId, await from.evidenceStore.get(sessionId, spill.pointer.sha256));
  } finally {
    await foldStore.dispose?.();
    await evidenceStore.dispose?.();
  }
}
