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

  /** A request went out at this moment. */
  requestSent(moment: CacheMoment): void {
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
