import { runArm } from '../arms/run-arm.ts';
import type { LabRunSettings } from '../report/lab-records.ts';
import type { RecordedSession } from '../transcripts/recorded-session.ts';
import { calibrateHostBlock, type HostBlock, recordedPromptTokens } from './host-block.ts';
import {
  describeCacheHistory,
  type RecordedCacheHistory,
  recordedCacheHistory,
  replayedCacheLosses,
} from './recorded-cache-losses.ts';
import { firstRecordedCompaction, neverCompactedReserve, recordedCompactionReserve } from './recorded-compaction.ts';
import type { RecordedModel } from './recorded-model.ts';
import { limitReplayPlan, type ReplayPlan } from './replay-plan.ts';
import { fitTokenScale, type TokenScale } from './token-scale.ts';

/**
 * `recorded`: the replay reproduces what the recording's own usage shows of its host and
 * provider (the host's block, the provider's tokenizer, where its cache was cold). `off`:
 * the conversation alone, as the lab's Pi sends it. @default 'recorded'
 */
export type ReplayCalibrationMode = 'recorded' | 'off';

/** What every arm of a replay runs with so that native reproduces the recorded bill. */
export interface ReplayCalibration {
  readonly hostBlock: HostBlock;
  readonly tokenScale: TokenScale;
  /**
   * Agent requests (0-based) at which every arm's provider has lost its cache, as the
   * recorder's had, each with the lab tokens of prefix it still holds (0: cold).
   */
  readonly cacheLosses: ReadonlyMap<number, number>;
  /** What the recording's usage shows of its provider's cache: its losses, and the recorder's own rewrites. */
  readonly cacheHistory: RecordedCacheHistory;
  /** Pi's compaction reserve that makes native compact where the recorder did; absent: Pi's default. */
  readonly compactionReserveTokens?: number;
  readonly notes: readonly string[];
}

/** The probe replays at most this many responses: enough for the fit, bounded on huge sessions. */
const PROBE_RESPONSES = 400;

const UNCALIBRATED: ReplayCalibration = {
  hostBlock: { tokens: 0, text: '', note: 'host block: none' },
  tokenScale: { scale: 1, requests: 0 },
  cacheLosses: new Map(),
  cacheHistory: { losses: [], rewrites: [] },
  notes: [],
};

/**
 * Calibrate a replay on its recording. A probe replays the start of the plan on the
 * unmanaged arm, bare (no block, the lab's tokenizer), up to the recording's first
 * compaction: until then both saw the same conversation, so the recording's prompt sizes
 * against the probe's give the tokenizer's ratio (from growth) and then the block (from the
 * first request).
 */
export async function calibrateReplay(input: {
  readonly mode: ReplayCalibrationMode;
  readonly session: Pick<RecordedSession, 'responses'>;
  readonly plan: ReplayPlan;
  readonly settings: LabRunSettings;
  readonly modelFor: (plan: ReplayPlan) => RecordedModel;
}): Promise<ReplayCalibration> {
  const { mode, session, plan } = input;
  if (mode === 'off')
    return { ...UNCALIBRATED, notes: ['calibration: off (the conversation alone, as the lab sends it)'] };
  const recorded = recordedPromptTokens(session).slice(0, plan.responseCount);
  const firstKnown = recorded.findIndex((tokens) => tokens !== undefined);
  if (firstKnown < 0 || plan.responseCount === 0) {
    return { ...UNCALIBRATED, notes: ['calibration: none (the recording has no usage to calibrate from)'] };
  }
  const probePlan = limitReplayPlan(plan, Math.min(plan.responseCount, PROBE_RESPONSES));
  const model = input.modelFor(probePlan);
  const probe = await runArm({
    arm: 'unmanaged',
    settings: input.settings,
    tools: model.tools,
    prompts: probePlan.turns.map((turn) => turn.prompt),
    policy: model.policy,
  });
  const replayed = probe.rows
    .filter((row) => row.purpose !== 'summary' && !row.rejected)
    .map((row) => row.promptTokens as number | undefined);
  const tokenScale = fitTokenScale(recorded, replayed);
  const hostBlock = calibrateHostBlock(recorded[firstKnown], replayed[firstKnown], tokenScale.scale);
  const cacheHistory = recordedCacheHistory(session.responses);
  const cacheLosses = replayedCacheLosses(cacheHistory.losses, plan.responseCount, tokenScale.scale);
  const notes = [
    hostBlock.note,
    tokenScale.requests === 0 || tokenScale.scale === 1
      ? 'tokenizer: the lab counts as the recorder did (too few requests before a compaction to tell otherwise)'
      : `tokenizer: the recorder's provider counted ${tokenScale.scale}× the lab's tokens for the same conversation (fit over ${tokenScale.requests} requests before any compaction); every arm is billed and capped in its counts`,
  ];
  notes.push(...describeCacheHistory(cacheHistory, plan.responseCount, input.settings.cacheRules.ttlSeconds));
  const compaction = firstRecordedCompaction(session, plan.responseCount);
  const window = input.settings.descriptorTokens;
  const neverCompacted = neverCompactedReserve(session, plan.responseCount, window);
  const compactionReserveTokens = recordedCompactionReserve(compaction, window) ?? neverCompacted?.reserveTokens;
  if (neverCompacted !== undefined)
    notes.push(
      `native compaction: the recording never compacted, though its largest prompt (${neverCompacted.largestPromptTokens.toLocaleString('en-US')} tokens) passed Pi's default threshold in the ${window.toLocaleString('en-US')}-token window; native's Pi compacts only above it (reserveTokens ${neverCompacted.reserveTokens.toLocaleString('en-US')})`,
    );
  if (compaction !== undefined)
    notes.push(
      compactionReserveTokens === undefined
        ? `native compaction: the recording first compacted before request ${compaction.beforeResponse + 1}, after a prompt of ${compaction.largestPromptTokens.toLocaleString('en-US')} tokens, above the ${window.toLocaleString('en-US')}-token window the replay gives Pi; native compacts by Pi's default`
        : `native compaction: the recording first compacted before request ${compaction.beforeResponse + 1}, after a prompt of ${compaction.largestPromptTokens.toLocaleString('en-US')} tokens; native's Pi compacts above the same (reserveTokens ${compactionReserveTokens.toLocaleString('en-US')} of its ${window.toLocaleString('en-US')}-token window)`,
    );
  return {
    hostBlock,
    tokenScale,
    cacheLosses,
    cacheHistory,
    ...(compactionReserveTokens === undefined ? {} : { compactionReserveTokens }),
    notes,
  };
}
