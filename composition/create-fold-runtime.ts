import 'reflect-metadata';
import type { DependencyContainer } from 'tsyringe';
import { type SessionTelemetry, sessionTelemetry } from '../adapters/backends/opentelemetry/index.ts';
import { FoldError } from '../core/fold-error.ts';
import { FoldRuntime } from '../core/fold-runtime.ts';
import { type FoldSettingsInput, resolveSettings } from '../core/settings/settings.ts';
import type { CostModel } from '../ports/cost-model.port.ts';
import type { EvidenceStore } from '../ports/evidence-store.port.ts';
import type { FoldStore } from '../ports/fold-store.port.ts';
import type { ProjectionSink } from '../ports/projection-sink.port.ts';
import { assertCostModelOption } from './cost-model-check.ts';
import {
  assertKnownOptions,
  assertOnOffOption,
  assertSessionIdOption,
  assertStoreLocation,
  RUNTIME_OPTION_KEYS,
  refuseRemovedMember,
} from './option-checks.ts';
import { RequestLogSink, requestLogOf } from './request-log-sink.ts';
import { createSessionContainer, resolveSessionPorts } from './session-container.ts';
import { type StoreScope, scopeContainerOf } from './store-scope.ts';
import type { StoreSelectionOptions } from './store-selection.ts';
import { BACKING_FOLD_STORE } from './tokens.ts';

/** Everything a host chooses when it builds a runtime. Only `sessionId` is required. */
export interface FoldRuntimeOptions extends StoreSelectionOptions {
  readonly sessionId: string;
  /** User settings, each with its default (validated again at run time: unknown and deleted names are refused). */
  readonly settings?: FoldSettingsInput;
  /** Where evidence lives. @default the chosen store's directory or file (`'fs'`/`'sqlite'`), else memory */
  readonly evidenceStore?: EvidenceStore;
  /**
   * Tokens and prices the scheduler decides with (checked: `SETTINGS.INVALID` names a bad field).
   * @default `createCharsCostModel()`: each request priced by its model id where a known list
   * matches, else the ledger list
   */
  readonly costModel?: CostModel;
  readonly projectionSink?: ProjectionSink;
  /**
   * Report metrics and spans through `@opentelemetry/api` when it is installed (an optional
   * peer; its global providers decide where they go). `false` turns it off.
   * @default true
   */
  readonly openTelemetry?: boolean;
  /**
   * A store scope (`createStoreScope`) whose stores this session shares: a session that names
   * no `store` (or `evidenceStore`) of its own uses the scope's, and closing the session leaves
   * them open.
   */
  readonly scope?: StoreScope;
}

/** The ports a composed runtime runs with, as the instances it uses. */
export interface RuntimePorts {
  /** The fold store the engine writes to: the backing store behind this session's size caps. */
  readonly foldStore: FoldStore;
  /** The store as chosen, passed or built, before the caps (a store scope's is shared by its sessions). */
  readonly backingFoldStore: FoldStore;
  readonly evidenceStore: EvidenceStore;
  readonly costModel: CostModel;
  /** The sink the host passed, if any. */
  readonly projectionSink?: ProjectionSink;
}

/** A built runtime, with the ports it was wired with. */
export interface ComposedRuntime {
  readonly runtime: FoldRuntime;
  /** The instances this runtime uses; what the session built is closed with it. */
  readonly ports: RuntimePorts;
  /** Write the request log's buffered rows (the newest request included) before a viewer reads the store. */
  flushRequestLog(): Promise<void>;
  /**
   * Dispose the runtime and every adapter the container created, and a store the host passed in
   * only when it owns its connection (`ownsConnection: true` on a Keyv store).
   */
  dispose(): Promise<void>;
}

/**
 * The composition root: the only place that knows tsyringe. Each session gets its own child
 * container, whose factories build the ports the host did not pass and which closes them when
 * the session is disposed; nothing is registered globally as a side effect of importing the
 * library. Pass a store scope (`createStoreScope`) to share its stores.
 */
export async function createFoldRuntime(options: FoldRuntimeOptions): Promise<ComposedRuntime> {
  return composeFoldRuntime(options, 'close-owning');
}

/**
 * What the runtime's `dispose()` does with stores the host passed in. `close-owning`: a store
 * that owns its connection is closed with the runtime (a host building one runtime on it).
 * `keep`: every one stays open, for the host adapters (Pi, the AI SDK) that hand one store to
 * many sessions or requests, whose lifetime is the host's, not any one runtime's.
 */
export type HostStoreDisposal = 'close-owning' | 'keep';

/** `createFoldRuntime`, choosing what its `dispose()` does with the host's stores. */
export async function composeFoldRuntime(
  options: FoldRuntimeOptions,
  hostStores: HostStoreDisposal,
): Promise<ComposedRuntime> {
  if (typeof options !== 'object' || options === null)
    throw new FoldError('SETTINGS.INVALID', 'createFoldRuntime needs an options object with a sessionId');
  assertKnownOptions(options, RUNTIME_OPTION_KEYS, 'createFoldRuntime');
  assertSessionIdOption(options.sessionId, 'createFoldRuntime');
  assertStoreLocation(options, 'createFoldRuntime');
  assertCostModelOption(options.costModel, 'createFoldRuntime');
  assertOnOffOption(options.openTelemetry, 'openTelemetry', 'createFoldRuntime');
  const settings = resolveSettings(options.settings ?? {});
  const parent = options.scope === undefined ? undefined : scopeContainerOf(options.scope, 'createFoldRuntime');
  // OpenTelemetry when the host installed @opentelemetry/api (docs/observability.md); nothing otherwise.
  // A session opened while the API still loads does not wait for it: what it reports meanwhile is held.
  const telemetry = options.openTelemetry === false ? undefined : await sessionTelemetry(options.sessionId);
  // The session's FOLD_STORE is the timed one, so the engine and the container hold the same instance.
  const session = await createSessionContainer(
    parent === undefined ? options : { ...options, parent },
    settings,
    telemetry?.observeStore,
  );
  let opened: OpenedSession;
  try {
    opened = await openSession(session, options.sessionId, telemetry);
  } catch (error) {
    // What the session built is closed again; what the host passed in stays open.
    await session.dispose();
    throw error;
  }
  const { runtime, requestLog } = opened;
  let disposed = false;
  const composed: ComposedRuntime = {
    runtime,
    ports: opened.ports,
    flushRequestLog: async () => requestLog?.flush(),
    async dispose() {
      if (disposed) return;
      disposed = true;
      await runtime.dispose();
      await requestLog?.flush();
      await session.dispose();
      // A store the host passed in stays open, unless it says it owns its connection: the host
      // handed the connection over, so it closes here and the process can exit.
      if (hostStores === 'close-owning')
        for (const store of new Set([options.store, options.evidenceStore]))
          if (ownsItsConnection(store)) await store.dispose();
    },
  };
  refuseRemovedMember(
    composed,
    'container',
    'ComposedRuntime.container',
    'read the instances from ComposedRuntime.ports (foldStore, backingFoldStore, evidenceStore, costModel)',
  );
  return composed;
}

interface OpenedSession {
  readonly runtime: FoldRuntime;
  readonly ports: RuntimePorts;
  readonly requestLog: RequestLogSink | undefined;
}

/** Resolve the session's ports (building what it owns) and open its engine on them. */
async function openSession(
  session: DependencyContainer,
  sessionId: string,
  telemetry: SessionTelemetry | undefined,
): Promise<OpenedSession> {
  const ports = resolveSessionPorts(session);
  const observed = telemetry === undefined ? ports.projectionSink : telemetry.observeSink(ports.projectionSink);
  const backingFoldStore = session.resolve(BACKING_FOLD_STORE);
  // The request log (for `pi-fold view`) goes to the backing store itself, outside the size caps.
  const loggingStore = requestLogOf(backingFoldStore);
  const requestLog = loggingStore === undefined ? undefined : new RequestLogSink(loggingStore, sessionId, observed);
  const projectionSink = requestLog ?? observed;
  const runtime = await FoldRuntime.open({
    ...ports,
    ...(projectionSink === undefined ? {} : { projectionSink }),
  });
  return {
    runtime,
    requestLog,
    ports: {
      foldStore: ports.foldStore,
      backingFoldStore,
      evidenceStore: ports.evidenceStore,
      costModel: ports.costModel,
      ...(ports.projectionSink === undefined ? {} : { projectionSink: ports.projectionSink }),
    },
  };
}

/** A host's store built with `ownsConnection: true` (the Keyv stores), which its runtime closes. */
function ownsItsConnection(store: unknown): store is { dispose(): Promise<void> } {
  if (typeof store !== 'object' || store === null) return false;
  const candidate = store as { ownsConnection?: unknown; dispose?: unknown };
  return candidate.ownsConnection === true && typeof candidate.dispose === 'function';
}
