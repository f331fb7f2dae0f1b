import { basename, join } from 'node:path';
import { loadModelCatalog } from '../../adapters/backends/pi-ai-catalog/index.ts';
import { FoldError } from '../../core/fold-error.ts';
import { DEFAULT_REPLAY_ARMS } from '../arms/arm-profile.ts';
import { runArm } from '../arms/run-arm.ts';
import { advanceLabClock } from '../arms/seeded-ids.ts';
import type { TrajectoryRecorder } from '../bound/bound-trajectory.ts';
import { boundRecorderFor, costBound } from '../bound/run-bound.ts';
import { DEFAULT_CACHE_RULES } from '../provider/prefix-cache-simulator.ts';
import { LAB_TOKENIZER } from '../provider/wire-tokens.ts';
import type { ArmName, LabRun, LabRunSettings } from '../report/lab-records.ts';
import { createProgressBar, type ProgressStream } from '../report/progress-bar.ts';
import { loadTranscript } from '../transcripts/load-transcript.ts';
import { dominantModel, type RecordedSession } from '../transcripts/recorded-session.ts';
import type { ArmReplay } from './arm-replay.ts';
import { calibrateReplay, type ReplayCalibration, type ReplayCalibrationMode } from './calibrate-replay.ts';
import { describeFaithfulness } from './faithfulness.ts';
import { MemorySampler, type PeakMemory } from './memory-sampler.ts';
import type { NeedsRow } from './needs/needs-rows.ts';
import { needsReport, observeArmNeeds, prepareReplayNeeds, type ReplayNeeds } from './needs/replay-needs.ts';
import { type ReplayCacheLifetime, replayCacheLifetime } from './recorded-cache-lifetime.ts';
import { createRecordedModel, type RecordedModel } from './recorded-model.ts';
import { type RecordedTimes, type ReplayClock, recordedTimes } from './replay-clock.ts';
import { describeArms, describeSession } from './replay-notes.ts';
import { buildReplayPlan, limitReplayPlan, type ReplayPlan } from './replay-plan.ts';
import { type ReplayWindow, resolveReplayWindow } from './replay-window.ts';

/** The arms a replay runs when none are named. */
export { DEFAULT_REPLAY_ARMS };

/** Above this many responses a full replay takes long enough to say so before it starts. */
const LONG_REPLAY_RESPONSES = 5_000;

/** What to replay and how. */
export interface ReplayOptions {
  readonly path: string;
  /** @default DEFAULT_REPLAY_ARMS */
  readonly arms?: readonly ArmName[];
  /** @default the recorded model's (see `resolveReplayWindow`), else 'gpt-5.6-ledger' */
  readonly priceList?: string;
  /** The window the runtimes budget against. @default the recorded model's prompt limit less the reply reserve, else 272000 */
  readonly descriptorTokens?: number;
  /** Prompts above this are refused. @default the recorded model's prompt limit, else 372000 */
  readonly providerCapTokens?: number;
  /** Where progress goes. @default process.stderr */
  readonly progress?: ProgressStream;
  /** Replay only the first this many recorded responses. @default all */
  readonly maxRequests?: number;
  /**
   * `recorded`: requests happen at the recorded times, so an idle gap longer than the cache's
   * lifetime finds it expired, for every arm. `uniform`: 15 s per request, the cache never
   * expires. @default 'recorded' where every response has a time, else 'uniform'
   */
  readonly clock?: ReplayClock;
  /** Reproduce the recording's host and provider from its usage (`calibrate-replay.ts`). @default 'recorded' */
  readonly calibration?: ReplayCalibrationMode;
  /** Keep each fold arm's store in `<directory>/<arm>/`, a filesystem store `pi-fold view` opens. @default nothing is kept */
  readonly keepFoldStoresIn?: string;
}

/** Everything a replay produced. */
export interface ReplayReport {
  readonly run: LabRun;
  readonly session: Pick<RecordedSession, 'format' | 'path' | 'compactions' | 'malformedLines' | 'linesRead'> & {
    readonly entries: number;
    readonly responses: number;
    readonly model: string | undefined;
  };
  /** The window, cap and price list the arms ran at, and where they came from. */
  readonly window: ReplayWindow;
  readonly plan: Pick<ReplayPlan, 'responseCount' | 'mergedUserMessages' | 'toolNames'> & { readonly turns: number };
  readonly arms: readonly ArmReplay[];
  /** Deterministic remarks for the stable summary (malformed lines, gaps, how calls are counted). */
  readonly notes: readonly string[];
  /** Machine-dependent figures (wall time, peak memory). */
  readonly measurements: Readonly<Record<string, string | number>>;
  readonly memory: PeakMemory;
  /** What every arm ran with to reproduce the recorded host and provider. */
  readonly calibration: ReplayCalibration;
}

/**
 * Replay a recorded session through each arm, open loop: the recording's user messages are
 * the turns, its responses are the model's answers, its tool results are the tools'. The file
 * is streamed (never read whole), converted once, planned once, and the same plan drives
 * every arm; memory is sampled on every request.
 */
export async function replayTranscript(options: ReplayOptions): Promise<ReplayReport> {
  const sampler = new MemorySampler();
  const loadStarted = performance.now();
  const plan = await loadAndPlan(options);
  const loadMs = performance.now() - loadStarted;
  if (plan.responseCount > LONG_REPLAY_RESPONSES && options.maxRequests === undefined) {
    (options.progress ?? process.stderr).write(
      `replay: ${plan.responseCount} recorded responses. Pi walks a session's whole branch before every request, so a replay's time grows with the square of its length; --max-requests N replays the first N (docs/lab-replay-and-reports.md, "Sessions of hundreds of MB", gives measured times).\n`,
    );
  }
  sampler.sample();
  const settings: LabRunSettings = {
    workload: `replay:${basename(options.path)}`,
    seed: 0,
    priceList: plan.cache.armPrices.name,
    prices: plan.cache.armPrices,
    descriptorTokens: plan.window.budgetTokens,
    providerCapTokens: plan.window.capTokens,
    tokenizer: LAB_TOKENIZER,
    cacheRules: { ...DEFAULT_CACHE_RULES, ttlSeconds: plan.cache.ttlSeconds },
  };
  const prompts = plan.turns.map((turn) => turn.prompt);
  const times = plan.clock === 'recorded' ? plan.times : undefined;
  const modelFor = (replayed: ReplayPlan): RecordedModel =>
    createRecordedModel(
      replayed,
      times === undefined ? {} : { offsetsMs: times.offsetsMs, nextRequestAt: advanceLabClock },
    );
  const calibration = await calibrateReplay({
    mode: options.calibration ?? 'recorded',
    session: plan.recording,
    plan,
    settings,
    modelFor,
  });
  const arms: ArmReplay[] = [];
  const needRows: NeedsRow[] = [];
  let recorder: TrajectoryRecorder | undefined;
  for (const arm of options.arms ?? DEFAULT_REPLAY_ARMS) {
    const armRecorder = boundRecorderFor(arm);
    recorder ??= armRecorder;
    const model = modelFor(plan);
    const needs = observeArmNeeds(plan.needs, arm, settings, model);
    const progress = createProgressBar(`replay ${arm}`, plan.responseCount, options.progress);
    const started = performance.now();
    const result = await runArm({
      arm,
      settings,
      tools: model.tools,
      prompts,
      policy: needs.policy,
      cacheOnLabClock: times !== undefined,
      hostBlock: calibration.hostBlock.text,
      tokenScale: calibration.tokenScale.scale,
      ...(options.keepFoldStoresIn === undefined ? {} : { keepStoreIn: join(options.keepFoldStoresIn, arm) }),
      ...(calibration.cacheLosses.size === 0 ? {} : { cacheLosses: calibration.cacheLosses }),
      ...(calibration.compactionReserveTokens === undefined
        ? {}
        : { compactionReserveTokens: calibration.compactionReserveTokens }),
      ...(armRecorder === undefined ? {} : { onPrompt: (billed) => armRecorder.record(billed) }),
      onRow: (row) => {
        sampler.sample();
        // The peak so far rides on every progress line: a run stopped early still told its memory.
        if (row.purpose !== 'summary' && !row.rejected)
          progress.tick(
            1,
            `request ${row.index} · peak rss ${Math.round(sampler.peaks().peakRssBytes / 1_048_576)} MB`,
          );
      },
    });
    progress.done();
    const answeredAgentRequests = result.rows.filter((row) => row.purpose !== 'summary' && !row.rejected).length;
    arms.push({
      result,
      gaps: model.gaps,
      answeredAgentRequests,
      wallMs: performance.now() - started,
      needs: needs.tally,
    });
    needRows.push(
      needs.tally.row(arm, 'arm', {
        rows: result.rows,
        prices: plan.cache.armPrices,
        tokenScale: calibration.tokenScale.scale,
      }),
    );
  }
  const boundStarted = performance.now();
  const bound = recorder === undefined ? undefined : costBound(recorder, settings, calibration.tokenScale.scale);
  const boundMs = performance.now() - boundStarted;
  const memory = sampler.stop();
  const run: LabRun = {
    settings,
    arms: arms.map((arm) => arm.result),
    ...(bound === undefined ? {} : { bound }),
    needs: needsReport(plan.needs, needRows),
  };
  const measurements: Record<string, string | number> = {
    'transcript load and plan (s)': round(loadMs / 1000, 2),
    ...Object.fromEntries(arms.map((arm) => [`${arm.result.arm} replay wall time (s)`, round(arm.wallMs / 1000, 2)])),
    ...(bound === undefined ? {} : { 'bound wall time (s)': round(boundMs / 1000, 2) }),
    'peak rss (MB)': round(memory.peakRssBytes / 1_048_576, 1),
    'peak heap used (MB)': round(memory.peakHeapUsedBytes / 1_048_576, 1),
    'memory samples': memory.samples,
  };
  return {
    run,
    session: plan.session,
    window: plan.window,
    plan: {
      responseCount: plan.responseCount,
      mergedUserMessages: plan.mergedUserMessages,
      toolNames: plan.toolNames,
      turns: plan.turns.length,
    },
    arms,
    notes: [
      ...plan.sessionNotes,
      ...calibration.notes,
      ...describeArms(plan, arms),
      ...describeFaithfulness({
        recording: plan.recording,
        responseCount: plan.responseCount,
        priceList: plan.window.prices,
        native: arms.find((arm) => arm.result.arm === 'native')?.result,
        recorderRewrites: calibration.cacheHistory.rewrites,
        malformedLines: plan.session.malformedLines.length,
        tokenScale: calibration.tokenScale.scale,
      }),
    ],
    measurements,
    memory,
    calibration,
  };
}

// Only the plan outlives this function: the converted entries (the file's bytes) are let go before any arm runs.
async function loadAndPlan(options: ReplayOptions): Promise<
  ReplayPlan & {
    session: ReplayReport['session'];
    window: ReplayWindow;
    sessionNotes: string[];
    clock: ReplayClock;
    times: RecordedTimes | undefined;
    recording: Pick<RecordedSession, 'responses' | 'compactions' | 'format'>;
    cache: ReplayCacheLifetime;
    needs: ReplayNeeds;
  }
> {
  const { maxRequests } = options;
  const session = await loadTranscript(options.path);
  const model = dominantModel(session.responses);
  const { catalog, fallbackReason } = await loadModelCatalog();
  const window = resolveReplayWindow(
    model,
    {
      ...(options.priceList === undefined ? {} : { priceList: options.priceList }),
      ...(options.descriptorTokens === undefined ? {} : { budgetTokens: options.descriptorTokens }),
      ...(options.providerCapTokens === undefined ? {} : { capTokens: options.providerCapTokens }),
    },
    catalog,
  );
  const whole = buildReplayPlan(session);
  // Every arm replays the recorded responses; with none, a table of zeros would read as a result.
  if (whole.responseCount === 0)
    throw new FoldError(
      'TRANSCRIPT.NO_RESPONSES',
      `${options.path} holds no model response to replay (${session.entries.length === 1 ? '1 entry' : `${session.entries.length} entries`}, none answered by a model); give a session in which the model has answered at least once`,
      { details: { path: options.path } },
    );
  const plan = maxRequests === undefined ? whole : limitReplayPlan(whole, maxRequests);
  const summary = {
    format: session.format,
    path: session.path,
    compactions: session.compactions,
    malformedLines: session.malformedLines,
    linesRead: session.linesRead,
    entries: session.entries.length,
    responses: session.responses.length,
    model,
  };
  const limited =
    plan.responseCount < whole.responseCount
      ? [
          `replayed the first ${plan.responseCount} of ${whole.responseCount} recorded responses (--max-requests ${maxRequests})`,
        ]
      : [];
  const cache = replayCacheLifetime(session.responses, window.prices, DEFAULT_CACHE_RULES.ttlSeconds);
  const times = recordedTimes(plan, cache.ttlSeconds);
  if (options.clock === 'recorded' && times === undefined)
    throw new FoldError(
      'SETTINGS.INVALID',
      `--clock recorded: ${options.path} does not give every response a time (use --clock uniform)`,
    );
  const clock: ReplayClock = options.clock ?? (times === undefined ? 'uniform' : 'recorded');
  const sessionNotes = [
    `catalog: ${catalog.source}${fallbackReason === undefined ? '' : ` (${fallbackReason})`}`,
    window.note,
    ...(cache.note === undefined ? [] : [cache.note]),
    clockNote(clock, times, cache.ttlSeconds),
    ...describeSession(session, plan, window.prices),
    ...limited,
  ];
  return {
    ...plan,
    session: summary,
    window,
    sessionNotes,
    clock,
    times,
    cache,
    // Only the responses' usage is kept for calibration: the entries (the file's bytes) go.
    recording: { responses: session.responses, compactions: session.compactions, format: session.format },
    // What the model needed from its tools, and where: every arm is scored on it (needs/).
    needs: prepareReplayNeeds(session, plan.responseCount),
  };
}

function clockNote(clock: ReplayClock, times: RecordedTimes | undefined, ttl: number): string {
  if (clock === 'recorded')
    return `clock: recorded request times; ${times!.idleGaps} idle gap(s) over the cache's ${ttl} s lifetime, where every arm finds its cache expired`;
  const why = times === undefined ? 'the file does not give every response a time' : '--clock uniform';
  return `clock: uniform, 15 s per request (${why}); the cache never expires`;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
