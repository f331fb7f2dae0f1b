import type { EngineState } from '../../ports/fold-records.ts';
import { BlobPrewrites } from '../commit/apply/blob-prewrites.ts';
import { CommitTelemetryLog } from '../commit/apply/telemetry.ts';
import { CommitScheduler } from '../commit/policy/scheduler.ts';
import { OccupancyEstimator } from '../pricing/occupancy-estimator.ts';
import { ProviderUsage } from '../pricing/provider-usage.ts';
import { OutboundChannel } from '../render/outbound-channel.ts';
import { ProjectionRenderer } from '../render/projection-renderer.ts';
import type { SpillBook } from '../spill/spill-book.ts';
import { Frontier } from '../state/frontier.ts';
import { RenderLookups } from '../state/render-lookups.ts';
import type { SessionModel } from '../state/session-model.ts';
import type { SessionPorts } from '../state/session-ports.ts';
import { StoreOutage } from '../store/store-outage.ts';

/**
 * What a session learns from its provider's answers and its own pace, kept in its state so a
 * reopened session starts with it: chars per token, the cache's answers, tokens appended per request.
 */
export type SessionLessons = Pick<EngineState, 'calibration' | 'cacheReports' | 'inflow'>;

/**
 * The collaborators one session's requests run through. Each keeps only what it derives or
 * learns (caches, cursors, the scheduler's clock, the outage it is in), and each is the one
 * owner of its cache's rule; none holds a decision the state persists, except the spill
 * book, which keeps the session's spill policy in the decisions it was given.
 */
export class SessionServices {
  /** Blobs of pending marks written ahead of their commit (core/commit/apply/blob-prewrites.ts). */
  readonly prewrites = new BlobPrewrites();
  /** Where the next marks are cut (docs/behaviour.md B3.1). */
  readonly frontier = new Frontier();
  readonly renderer = new ProjectionRenderer();
  readonly lookups = new RenderLookups();
  readonly estimator: OccupancyEstimator;
  /** The one outbound channel: the sink, then subscribed observers. */
  readonly outbound: OutboundChannel;
  /** Per-commit telemetry (estimated, then provider-measured). */
  readonly telemetry: CommitTelemetryLog;
  /** The provider's counts, as they arrive after each request. */
  readonly providerUsage = new ProviderUsage();
  /** Store writes during a projection: refused ones warn once per outage instead of failing the request. */
  readonly storeOutage: StoreOutage;
  /** When and how deep automatic commits land (docs/behaviour.md B3.2, B3.3). */
  readonly scheduler: CommitScheduler;

  constructor(
    ports: SessionPorts,
    /** How oversized tool results and arguments enter the window (docs/behaviour.md B6.2). */
    readonly spills: SpillBook,
    model: SessionModel,
    learned: SessionLessons,
  ) {
    this.outbound = new OutboundChannel(ports.projectionSink);
    this.telemetry = new CommitTelemetryLog(ports.sessionId, this.outbound);
    this.estimator = new OccupancyEstimator(ports.costModel.defaultCharsPerToken, learned.calibration);
    this.storeOutage = new StoreOutage(ports.foldStore.name);
    const estimator = this.estimator;
    this.scheduler = new CommitScheduler(
      {
        settings: ports.settings,
        costModel: ports.costModel,
        index: model.index,
        lattice: model.lattice,
        // Read through the model: a refused action puts back a memory of its own.
        get memory() {
          return model.memory;
        },
        estimator,
      },
      learned,
    );
  }

  /** What the session learned of its provider and pace, for its state. */
  lessons(): Required<SessionLessons> {
    return {
      calibration: this.estimator.calibration(),
      cacheReports: this.scheduler.clock.cacheReports(),
      inflow: this.scheduler.inflow.kept(),
    };
  }
}
