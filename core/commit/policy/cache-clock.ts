import type { CacheReportV1 } from '../../../ports/fold-records.ts';
import { type CacheLossSummary, CacheSurvival } from './cache-survival.ts';

/** What the host says about the request's moment and model (core has no clock: docs/behaviour.md I5). */
export interface CacheMoment {
  /** Milliseconds since the epoch at which the request is prepared, from the host's clock. */
  readonly requestTime?: number;
  readonly model?: { readonly id?: string; readonly provider?: string };
}

/** Why the provider's cache is gone before this request, if it is. */
export type ColdReason = 'idle' | 'model-switch';

/**
 * Tracks when the provider's cache was last touched and for which model (docs/behaviour.md B3.3). A request
 * after an idle gap longer than the cache lifetime, or to another model than the last one,
 * pays fresh input whatever the window holds. A host's cache refresh (Pi 1.x warms caches
 * while idle) counts as a touch: a warmed cache is not cold.
 */
export class CacheClock {
  private lastTouch: number | undefined;
  private lastModel: string | undefined;
  private observedLifetimeMs: number | undefined;
  /** The idle gap before the newest request, until the provider reports on it. */
  private unreportedGapMs: number | undefined;
  private readonly survival: CacheSurvival;

  /** @param cacheReports what a reopened session learned before (its state's `cacheReports`). */
  constructor(cacheReports: readonly CacheReportV1[] = []) {
    this.survival = new CacheSurvival(cacheReports);
  }

  /** The provider's answers kept, for the session's state. */
  cacheReports(): readonly CacheReportV1[] {
    return this.survival.kept();
  }

  /**
   * Whether the cache is cold for this request. `lifetimeMs` is the price list's; a lifetime
   * the host reported (Pi's warming TTL) takes precedence. Unknown times never count as cold.
   */
  coldReason(moment: CacheMoment, lifetimeMs: number | undefined): ColdReason | undefined {
    const model = modelKey(moment.model);
    if (model !== undefined && this.lastModel !== undefined && model !== this.lastModel) return 'model-switch';
    const lifetime = this.observedLifetimeMs ?? lifetimeMs;
    if (lifetime === undefined || moment.requestTime === undefined || this.lastTouch === undefined) return undefined;
    return moment.requestTime - this.lastTouch > lifetime ? 'idle' : undefined;
  }

  /**
   * The chance, learned from the provider's reports, that the cache is gone before this
   * request though its gap is inside the lifetime (0 when nothing was learned).
   */
  lossShare(moment: CacheMoment): number {
    if (moment.requestTime === undefined || this.lastTouch === undefined) return 0;
    return this.survival.lossShare(moment.requestTime - this.lastTouch);
  }

  /** What the provider's reports have taught about its cache so far. */
  learnedLosses(): CacheLossSummary {
    return this.survival.summary();
  }

  /**
   * The provider answered the newest request: it read from its cache (`read`), found nothing
   * to read where it should have (`lost`), or its answer says neither (a rewrite that kept
   * little, a report without cache counts).
   */
  providerAnswered(outcome: 'read' | 'lost' | 'unclear'): void {
    const gap = this.unreportedGapMs;
    this.unreportedGapMs = undefined;
    if (gap !== undefined && outcome !== 'unclear') this.survival.observe(gap, outcome === 'lost');
  }

  /** A request went out at this moment. */
  requestSent(moment: CacheMoment): void {
    this.unreportedGapMs =
      moment.requestTime === undefined || this.lastTouch === undefined
        ? undefined
        : moment.requestTime - this.lastTouch;
    if (moment.requestTime !== undefined)
      this.lastTouch = Math.max(this.lastTouch ?? moment.requestTime, moment.requestTime);
    const model = modelKey(moment.model);
    if (model !== undefined) this.lastModel = model;
  }

  /** The host refreshed the cache (a warming request) at `time`, optionally telling its lifetime. */
  warmed(time: number, lifetimeMs?: number): void {
    if (Number.isFinite(time) && (this.lastTouch === undefined || time > this.lastTouch)) this.lastTouch = time;
    if (lifetimeMs !== undefined && Number.isFinite(lifetimeMs) && lifetimeMs > 0) this.observedLifetimeMs = lifetimeMs;
  }
}

function modelKey(model: CacheMoment['model']): string | undefined {
  if (model?.id === undefined) return undefined;
  return model.provider === undefined ? model.id : `${model.provider}/${model.id}`;
}
