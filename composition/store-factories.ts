import { type DependencyContainer, instanceCachingFactory, Lifecycle } from 'tsyringe';
import { FsEvidenceStore } from '../adapters/backends/storage-fs/fs-evidence-store.ts';
import { FsFoldStore } from '../adapters/backends/storage-fs/fs-fold-store.ts';
import { MemoryEvidenceStore } from '../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../adapters/backends/storage-memory/memory-fold-store.ts';
import type { EvidenceStore } from '../ports/evidence-store.port.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import { PortOwner } from './port-owner.ts';
import { type StoreKind, type StoreSelectionOptions, sqlitePathOf, storeRootOf } from './store-selection.ts';
import { BACKING_FOLD_STORE, EVIDENCE_STORE, PORT_OWNER } from './tokens.ts';

/** How one kind of built-in store is made: its fold store, and the evidence store that lives beside it. */
export interface StoreKindBuilder {
  readonly foldStore: (selection: StoreSelectionOptions) => FoldStore;
  readonly evidenceStore: (selection: StoreSelectionOptions) => EvidenceStore;
}

const capOf = (selection: StoreSelectionOptions) =>
  selection.evidenceCapBytes === undefined ? {} : { capBytes: selection.evidenceCapBytes };

const fsBuilder: StoreKindBuilder = {
  foldStore: (selection) => new FsFoldStore({ root: storeRootOf(selection) }),
  evidenceStore: (selection) => new FsEvidenceStore({ root: storeRootOf(selection), ...capOf(selection) }),
};

const memoryBuilder: StoreKindBuilder = {
  foldStore: () => new MemoryFoldStore(),
  evidenceStore: (selection) => new MemoryEvidenceStore(selection.evidenceCapBytes),
};

// SQLite is a native module: it is loaded only for hosts that chose it, which is why finding a
// builder is asynchronous while the builder itself (what tsyringe's factories call) is not.
async function sqliteBuilder(): Promise<StoreKindBuilder> {
  const sqlite = await import('../adapters/backends/storage-sqlite/create-sqlite-store.ts');
  return {
    foldStore: (selection) => sqlite.createSqliteFoldStore({ path: sqlitePathOf(selection) }),
    evidenceStore: (selection) =>
      sqlite.createSqliteEvidenceStore({ path: sqlitePathOf(selection), ...capOf(selection) }),
  };
}

/** The builder of a built-in store kind. */
export async function storeBuilderOf(kind: StoreKind): Promise<StoreKindBuilder> {
  if (kind === 'sqlite') return sqliteBuilder();
  return kind === 'fs' ? fsBuilder : memoryBuilder;
}

/** The container's own `PortOwner`, constructed by tsyringe so the container's dispose closes it. */
export function portOwnerOf(container: DependencyContainer): PortOwner {
  if (!container.isRegistered(PORT_OWNER))
    container.register(PORT_OWNER, { useClass: PortOwner }, { lifecycle: Lifecycle.ContainerScoped });
  return container.resolve(PORT_OWNER);
}

/**
 * Register the stores `builder` builds, each on first resolve and once per container, owned by
 * `container` (closed with it). `which` names the ports to register, so a host-supplied port is
 * left alone.
 */
export function registerStoreFactories(
  container: DependencyContainer,
  builder: StoreKindBuilder,
  selection: StoreSelectionOptions,
  which: { readonly foldStore: boolean; readonly evidenceStore: boolean },
): void {
  const owner = portOwnerOf(container);
  // The owner is captured here, not taken from the resolving container: a store scope's store
  // is resolved through its sessions' child containers, yet belongs to the scope.
  if (which.foldStore)
    container.register(BACKING_FOLD_STORE, {
      useFactory: instanceCachingFactory(() => owner.adopt(builder.foldStore(selection))),
    });
  if (which.evidenceStore)
    container.register(EVIDENCE_STORE, {
      useFactory: instanceCachingFactory(() => owner.adopt(builder.evidenceStore(selection))),
    });
}
