import { type DependencyContainer, instanceCachingFactory, container as rootContainer } from 'tsyringe';
import type { FoldRuntimeDependencies } from '../core/fold-runtime.ts';
import { createCharsCostModel } from '../core/pricing/chars-cost-model.ts';
import type { FoldSettings } from '../core/settings/settings.ts';
import type { CostModel } from '../ports/cost-model.port.ts';
import type { EvidenceStore } from '../ports/evidence-store.port.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import type { ProjectionSink } from '../ports/projection-sink.port.ts';
import { portOwnerOf, registerStoreFactories, storeBuilderOf } from './store-factories.ts';
import { type StoreSelectionOptions, selectedStoreKind, withStoreCaps } from './store-selection.ts';
import {
  BACKING_FOLD_STORE,
  COST_MODEL,
  EVIDENCE_STORE,
  FOLD_SETTINGS,
  FOLD_STORE,
  PROJECTION_SINK,
  SESSION_ID,
} from './tokens.ts';

/** What one session's container is built from. */
export interface SessionPorts extends StoreSelectionOptions {
  readonly sessionId: string;
  readonly evidenceStore?: EvidenceStore;
  readonly costModel?: CostModel;
  readonly projectionSink?: ProjectionSink;
  /** The container the session's is a child of: a store scope's. @default tsyringe's root container */
  readonly parent?: DependencyContainer;
}

/**
 * The session's child container. A port the host passed is registered as a value (the host's to
 * close); a built-in store the host named is registered as a factory the session owns; a port
 * the host left out is inherited from the parent container when it has one (a store scope
 * shares its stores this way), else built from the defaults. `FOLD_STORE` is always the
 * session's own: the backing store wrapped with this session's size caps.
 *
 * Nothing is built yet; resolving the ports builds them, and disposing the container closes
 * what it built.
 */
export async function createSessionContainer(
  ports: SessionPorts,
  settings: FoldSettings,
  observeStore?: (store: FoldStore) => FoldStore,
): Promise<DependencyContainer> {
  const parent = ports.parent ?? rootContainer;
  const kind = selectedStoreKind(ports);
  const session = parent.createChildContainer();
  session.register(SESSION_ID, { useValue: ports.sessionId });
  session.register(FOLD_SETTINGS, { useValue: settings });
  portOwnerOf(session);

  // An absent `store` means "the parent's, if it has one": that is how a store scope's sessions share a store.
  const inheritsFoldStore = ports.store === undefined && parent.isRegistered(BACKING_FOLD_STORE, true);
  // Evidence follows a store named in this call; otherwise the parent's, otherwise the default beside the fold store.
  const inheritsEvidence =
    ports.evidenceStore === undefined && typeof ports.store !== 'string' && parent.isRegistered(EVIDENCE_STORE, true);
  if (kind === 'instance')
    session.register(BACKING_FOLD_STORE, { useValue: ports.store as Exclude<typeof ports.store, string | undefined> });
  if (ports.evidenceStore !== undefined) session.register(EVIDENCE_STORE, { useValue: ports.evidenceStore });
  const buildsFoldStore = kind !== 'instance' && !inheritsFoldStore;
  const buildsEvidence = ports.evidenceStore === undefined && !inheritsEvidence;
  if (buildsFoldStore || buildsEvidence) {
    // Evidence beside an instance store has no directory or file to share, so it stays in memory.
    const builder = await storeBuilderOf(kind === 'instance' ? 'memory' : kind);
    registerStoreFactories(session, builder, ports, { foldStore: buildsFoldStore, evidenceStore: buildsEvidence });
  }
  session.register(FOLD_STORE, {
    useFactory: instanceCachingFactory((resolver) => {
      const capped = withStoreCaps(resolver.resolve(BACKING_FOLD_STORE), ports.sessionId, ports);
      return observeStore === undefined ? capped : observeStore(capped);
    }),
  });

  if (ports.costModel !== undefined) session.register(COST_MODEL, { useValue: ports.costModel });
  else if (!parent.isRegistered(COST_MODEL, true))
    session.register(COST_MODEL, { useFactory: instanceCachingFactory(() => createCharsCostModel()) });
  if (ports.projectionSink !== undefined) session.register(PROJECTION_SINK, { useValue: ports.projectionSink });
  return session;
}

/**
 * Resolve the session's ports in the order a failure is easiest to read: the fold store first
 * (its caps are checked against it), then evidence, cost model and sink.
 */
export function resolveSessionPorts(
  session: DependencyContainer,
): FoldRuntimeDependencies & { readonly evidenceStore: EvidenceStore } {
  const foldStore = session.resolve(FOLD_STORE);
  const evidenceStore = session.resolve(EVIDENCE_STORE);
  return {
    sessionId: session.resolve(SESSION_ID),
    settings: session.resolve(FOLD_SETTINGS),
    foldStore,
    evidenceStore,
    costModel: session.resolve(COST_MODEL),
    ...(session.isRegistered(PROJECTION_SINK, true) ? { projectionSink: session.resolve(PROJECTION_SINK) } : {}),
  };
}
