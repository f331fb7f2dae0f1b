import type { CostModel } from '../../ports/cost-model.port.ts';
import type { EvidenceStore } from '../../ports/evidence-store.port.ts';
import type { FoldStore } from '../../ports/fold-store.port.ts';
import type { ProjectionSink } from '../../ports/projection-sink.port.ts';
import type { FoldSettings } from '../settings/settings.ts';

/** What is fixed for a session's life: its id, its settings and the ports it runs on. */
export interface SessionPorts {
  readonly sessionId: string;
  readonly settings: FoldSettings;
  readonly foldStore: FoldStore;
  readonly costModel: CostModel;
  readonly projectionSink?: ProjectionSink;
  readonly evidenceStore?: EvidenceStore;
}

/** The ports one session runs on, and its settings, as `FoldRuntime.open` takes them (the public name). */
export type FoldRuntimeDependencies = SessionPorts;
