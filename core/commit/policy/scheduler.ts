import type { CostModel, PriceList } from '../../../ports/cost-model.port.ts';
import type { EngineState } from '../../../ports/fold-records.ts';
import type { FoldLatticeView } from '../../folds/fold-lattice.ts';
import type { EstimatorView } from '../../pricing/occupancy-estimator.ts';
import type { FoldSettings } from '../../settings/settings.ts';
import type { EngineMemoryView } from '../../state/engine-memory.ts';
import type { TranscriptIndexView } from '../../transcript/transcript-index.ts';
import { type MarkPlanInputs, planStandingMarks } from '../plan/plan-marks.ts';
import { CacheClock, type CacheMoment, type ColdReason } from './cache-clock.ts';
import type { CacheLossSummary } from './cache-survival.ts';
import { commitPaysOff, hardCeiling, schedulingRates } from './cost.ts';
import type { CommitReason, ScheduledCommit } from './decision.ts';
import { DisplayedCharsMemo } from './displayed-chars-memo.ts';
import { InflowTracker } from './inflow-tracker.ts';
import { floorTokensFor, freeableCharsBound, marksOutsideFloor, type PlacedMark, rawFloorStart } from './raw-floor.ts';

/** What the scheduler reads of a session: the policy, the cost model, the branch and its marks. */
export interface SchedulerSession {
  readonly settings: FoldSettings;
  readonly costModel: CostModel;
  readonly index: TranscriptIndexView;
  readonly lattice: FoldLatticeView;
  readonly memory: EngineMemoryView;
  readonly estimator: EstimatorView;
}

/** What the scheduler answers one request: its commit, if any, and whether the `immediate` drain runs on. */
export interface ScheduleAnswer {
  readonly commit: ScheduledCommit | undefined;
  /** The drain as it stands after this request; the scheduler keeps it only once the commit is settled. */
  readonly draining: boolean;
}

/**
 * What a request's commit teaches the scheduler, handed back by `settle` once the store accepted
 * the commit (or there was nothing to write): the drain after it, and the reason of the newest
 * commit that landed folds (absent: status keeps the one before).
 */
export interface SchedulerUpdate {
  readonly draining: boolean;
  readonly landedReason?: CommitReason;
}

/** What one request asks the scheduler. */
export interface ScheduleInputs {
  readonly estimate: number;
  readonly budget: number;
  readonly moment: CacheMoment;
  /** Chars the host adds around the messages (kept in every prefix). */
  readonly overheadChars: number;
}

/**
 * The commit scheduler of one session (docs/behaviour.md B3.2, B3.3, B3.6): it observes each request's inflow
 * and moment, and decides whether this request commits and how deep, through the CostModel's
 * price list. Its answer is a `ScheduledCommit`; `decision.ts` settles it against the fence and a
 * forced commit, and `../plan/request-plan.ts` turns that into the plan. To price the cost
 * trigger it plans a full commit itself (`costReason`), which writes nothing.
 */
export class CommitScheduler {
  readonly inflow: InflowTracker;
  readonly clock: CacheClock;
  /** `immediate` only: a trigger fired and due marks are still landing one per request. */
  private drainRunning = false;
  /** The reason of the newest automatic commit, for status. */
  lastReason: CommitReason | undefined;
  /** What the kept prefix and each candidate's span show, kept between commits. */
  private readonly shown: DisplayedCharsMemo;

  /** @param learned what a reopened session learned before: the provider's cache answers and the pace. */
  constructor(
    private readonly runtime: SchedulerSession,
    learned: Pick<EngineState, 'cacheReports' | 'inflow'> = {},
  ) {
    this.clock = new CacheClock(learned.cacheReports);
    this.inflow = new InflowTracker(learned.inflow);
    this.shown = new DisplayedCharsMemo(runtime);
  }

  /** The price list the request's model is billed by. */
  priceList(moment: CacheMoment): PriceList {
    const costModel = this.runtime.costModel;
    return costModel.priceListFor?.(moment.model) ?? costModel.priceList;
  }

  /** Why the cache is gone before this request, if it is. */
  coldReason(moment: CacheMoment, priceList: PriceList = this.priceList(moment)): ColdReason | undefined {
    const seconds = priceList.cacheLifetimeSeconds;
    return this.clock.coldReason(moment, seconds === undefined ? undefined : seconds * 1000);
  }

  /** Whether the `immediate` drain is running (due marks landing one per request). */
  get draining(): boolean {
    return this.drainRunning;
  }

  /**
   * The policy's commit for this request, if any (forced commits and the fence are decided by
   * the caller). Writes nothing: the drain it answers is kept only through `settle`.
   */
  schedule(inputs: ScheduleInputs): ScheduleAnswer {
    const { settings, index, memory, estimator } = this.runtime;
    const draining = this.drainRunning;
    if (settings.scheduling === 'eager')
      return { commit: { reason: 'eager', charsToFree: Number.POSITIVE_INFINITY }, draining };
    // One price list per request: its lookup builds the model's key each time.
    const priceList = this.priceList(inputs.moment);
    const cold = this.coldReason(inputs.moment, priceList);
    // The band decides from the window's size alone, so a request it rules out (nearly every
    // one) returns before the marks are placed: that walk visits every standing mark, and a
    // pure append must cost what it adds, not the session (bench:engine's append scaling).
    const bandCharsToFree =
      settings.scheduling === 'band' && cold === undefined ? this.bandCharsToFree(inputs, priceList) : undefined;
    if (bandCharsToFree !== undefined && bandCharsToFree <= 0) return { commit: undefined, draining };
    const floorStart = rawFloorStart(
      index,
      floorTokensFor(settings.rawFloorTokens, inputs.budget),
      estimator.charsPerToken(),
    );
    const candidates = marksOutsideFloor(index, memory.marks, floorStart);
    if (candidates.length === 0) return { commit: undefined, draining: false };
    const onlyMarkIds = new Set(candidates.map(({ mark }) => mark.id));
    if (cold !== undefined) {
      const reason = cold === 'idle' ? 'cold-idle' : 'cold-model-switch';
      return { commit: { reason, charsToFree: Number.POSITIVE_INFINITY, onlyMarkIds }, draining };
    }
    if (bandCharsToFree !== undefined)
      return { commit: { reason: 'band', charsToFree: bandCharsToFree, onlyMarkIds }, draining };
    const reason = this.costReason(inputs, priceList, candidates);
    if (settings.scheduling === 'immediate') {
      const drains = draining || reason !== undefined;
      const drain = {
        reason: 'immediate-drain',
        charsToFree: Number.POSITIVE_INFINITY,
        onlyMarkIds,
        maxFolds: 1,
      } as const;
      return { commit: drains ? drain : undefined, draining: drains };
    }
    const commit = reason === undefined ? undefined : { reason, charsToFree: Number.POSITIVE_INFINITY, onlyMarkIds };
    return { commit, draining };
  }

  /**
   * Keep what a request's commit taught: called once the store accepted the commit (or it had
   * nothing to write), so a refused commit leaves the drain and status's reason as they were.
   */
  settle(update: SchedulerUpdate): void {
    this.drainRunning = update.draining;
    if (update.landedReason !== undefined) this.lastReason = update.landedReason;
  }

  /** Record what went out: the inflow it shows, and the cache it touched. */
  requestSent(moment: CacheMoment, preCommitTokens: number, sentTokens: number): void {
    this.inflow.observe(preCommitTokens, sentTokens);
    this.clock.requestSent(moment);
  }

  /**
   * The seed's band: at `maxTarget` (or the long-context ceiling), free down to `minTarget`.
   * Chars to free, or 0 when the band asks for nothing (under the trigger, or already under
   * its aim: a commit that could free nothing is not planned, and costs no state write).
   */
  private bandCharsToFree(inputs: ScheduleInputs, priceList: PriceList): number {
    const { thresholds } = this.runtime.settings;
    const trigger = hardCeiling({ budgetTokens: inputs.budget, priceList, ceilingShare: thresholds.maxTarget });
    if (inputs.estimate < trigger) return 0;
    return Math.max(
      0,
      (inputs.estimate - thresholds.minTarget * inputs.budget) * this.runtime.estimator.charsPerToken(),
    );
  }

  /**
   * The cost policy's trigger: the hard ceiling, or the request at which the window's excess
   * over what a full commit would leave reaches the economic excess (`cost.ts`). The
   * cheap bound rules most requests out before any fold record is built.
   */
  private costReason(
    inputs: ScheduleInputs,
    priceList: PriceList,
    candidates: readonly PlacedMark[],
  ): CommitReason | undefined {
    const { thresholds } = this.runtime.settings;
    if (inputs.estimate >= hardCeiling({ budgetTokens: inputs.budget, priceList, ceilingShare: thresholds.maxTarget }))
      return 'ceiling';
    const inflowTokens = this.inflow.perRequest();
    if (inflowTokens === undefined) return undefined;
    const rates = schedulingRates(priceList, inputs.estimate);
    // Where the provider has been losing its cache at gaps like this one, the rewrite may
    // cost no premium at all (B3.3).
    const lossShare = this.clock.lossShare(inputs.moment);
    const keptTokens = this.keptPrefixTokens(candidates, inputs.overheadChars);
    const tokens = (chars: number): number => this.runtime.estimator.tokensForChars(chars);
    const lowest = Math.max(
      0,
      inputs.estimate - tokens(freeableCharsBound((first, last) => this.shown.measure(first, last), candidates)),
    );
    if (
      !commitPaysOff(
        {
          windowTokens: inputs.estimate,
          afterTokens: lowest,
          rewriteTokens: Math.max(0, lowest - keptTokens),
          inflowTokens,
          lossShare,
        },
        rates,
      )
    )
      return undefined;
    const plan = planStandingMarks(markPlanInputs(this.runtime), {
      charsToFree: Number.POSITIVE_INFINITY,
      onlyMarkIds: new Set(candidates.map(({ mark }) => mark.id)),
    });
    const after = Math.max(0, inputs.estimate - tokens(plan.savedChars));
    const earliest = Math.min(...plan.folds.map((fold) => fold.first));
    const kept = plan.folds.length === 0 ? keptTokens : this.prefixTokens(earliest, inputs.overheadChars);
    return commitPaysOff(
      {
        windowTokens: inputs.estimate,
        afterTokens: after,
        rewriteTokens: Math.max(0, after - kept),
        inflowTokens,
        lossShare,
      },
      rates,
    )
      ? 'cost'
      : undefined;
  }

  /** Tokens before the earliest candidate's span: the prefix a commit keeps byte for byte. */
  private keptPrefixTokens(candidates: readonly PlacedMark[], overheadChars: number): number {
    return this.prefixTokens(Math.min(...candidates.map(({ first }) => first)), overheadChars);
  }

  private prefixTokens(position: number, overheadChars: number): number {
    const chars = position <= 0 ? 0 : this.shown.measure(0, position - 1);
    return this.runtime.estimator.tokensForChars(chars + overheadChars);
  }
}

/** What planning over the standing marks reads of a session. */
export function markPlanInputs(session: SchedulerSession): MarkPlanInputs {
  return {
    index: session.index,
    lattice: session.lattice,
    memory: session.memory,
    toolName: session.settings.toolName,
  };
}

/** The commit scheduler, read only: why the newest automatic commit landed, and whether a drain runs. */
export interface SchedulerView {
  readonly lastReason: CommitReason | undefined;
  /** `immediate` only: a trigger fired and due marks are still landing one per request. */
  readonly draining: boolean;
  /** What the provider's reports taught about its cache (docs/behaviour.md B3.3). */
  readonly clock: { learnedLosses(): CacheLossSummary };
}
