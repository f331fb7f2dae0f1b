/**
 * The lab's arm harness: one arm of one workload through a REAL Pi `AgentSession`, with a
 * simulated provider that tokenizes, caches, bills and refuses like a real one.
 *
 * ```ts
 * const result: ArmResult = await runArm({
 *   arm: 'native',                       // unmanaged | native | fold | fold-hook | fold-band | fold-immediate | fold-eager | oracle | extension:<path>
 *   settings,                            // LabRunSettings: descriptor, provider cap, price list name, cache rules
 *   tools: [createReadToolDefinition(cwd), myTool],   // Pi ToolDefinitions offered (no built-ins are added)
 *   prompts: ['first user message', 'second', ...],   // one per user turn, sent in order
 *   policy: (request) => ({ text: '…', toolCalls: [{ name: 'read', arguments: { path: 'a.ts' } }] }),
 *   cwd,                                 // the session's working directory (where `read` resolves paths)
 *   onRow: (row) => progress.tick(),     // optional: every billed or refused request as it happens
 * });
 * ```
 *
 * The model policy is the scripted model. It receives a `ModelRequest`: `purpose` (`'agent'`
 * for the agent loop, `'summary'` for native compaction's summary call), `systemPrompt`,
 * `tools`, `messages` (pi-ai `Message[]`, exactly what the provider got), `index`, and
 * `promptTokens`. It returns a `ScriptedReply` — `text` and/or `toolCalls` (`{name,
 * arguments}`); a reply with tool calls continues the agent loop, one without ends the turn.
 * `purpose: 'probe'` on a reply labels its row as probe work. Output tokens are the reply's
 * own tokens. The policy must be deterministic for a run to be reproducible.
 *
 * What the harness does per request: serialize the prompt in wire order (system, tools,
 * messages), tokenize each message once (o200k_base, cached by digest), refuse it above the
 * arm's cap with an overflow error Pi recognises, else bill it through the positional prefix
 * cache and the price list, and classify it as a pure append or a rewrite (attributed to a
 * fold commit or a native compaction, else unattributed). The result holds one `RequestRow`
 * per request, compactions, fold events, rewrites, file reads (`read` tool results) and,
 * when the arm stopped early, `failure`. Probe scores are the workload's to add. While an arm
 * runs, `crypto.randomUUID` is seeded and `Date.now` is a counter clock (see `seeded-ids.ts`):
 * Pi's entry ids and timestamps reach the wire through fold ids and hashes.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AgentSession,
  createAgentSession,
  DefaultResourceLoader,
  SessionManager,
  SettingsManager,
  type ToolDefinition,
} from '@mariozechner/pi-coding-agent';
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import type { PiFoldRegistration } from '../../adapters/hosts/pi/register-pi-fold.ts';
import { FoldError } from '../../core/fold-error.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import type { Thresholds } from '../../core/settings/settings.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';
import { scriptedModelHost } from '../../testing/pi/scripted-host.ts';
import { type BilledPrompt, type ModelPolicy, SimulatedProvider } from '../provider/simulated-provider.ts';
import { WireTokenizer } from '../provider/wire-tokens.ts';
import type { ArmName, ArmResult, LabRunSettings, RequestRow } from '../report/lab-records.ts';
import { armProfile, wholeThresholds } from './arm-profile.ts';
import type { ArmProfile } from './arm-setup.ts';
import { ArmTally } from './arm-tally.ts';
import { auditBytes, sessionOriginals } from './byte-audit.ts';
import { type ArmStores, checkedFoldSettings, foldFactory, foldSettingsFile } from './fold-arm.ts';
import { keepArmStore } from './keep-store.ts';
import { type LandingStrategy, landingFromEnvironment } from './landing.ts';
import { labClockSeconds, withLabDeterminism } from './seeded-ids.ts';
import { closeSession, SessionActivity, settleSession } from './settle-session.ts';

export type { ModelPolicy, ModelRequest, ScriptedReply } from '../provider/simulated-provider.ts';
export { checkedFoldSettings } from './fold-arm.ts';

/** One arm to run. */
export interface RunArmInput {
  readonly arm: ArmName;
  readonly settings: LabRunSettings;
  /** Every tool the session offers (Pi's built-ins are not added: pass `createReadToolDefinition(cwd)` for `read`). */
  // biome-ignore lint/suspicious/noExplicitAny: Pi's own tool definitions carry their own parameter and detail types
  readonly tools: readonly ToolDefinition<any, any>[];
  /** One user message per turn, in order. */
  readonly prompts: readonly string[];
  readonly policy: ModelPolicy;
  /** The session's working directory. @default a fresh temporary directory */
  readonly cwd?: string;
  /** Called with every request row as it is billed (progress bars). */
  readonly onRow?: (row: RequestRow) => void;
  /** Called with every agent prompt as it is billed (the cost bound's recorder, lab/bound). */
  readonly onPrompt?: (billed: BilledPrompt) => void;
  /**
   * The simulated cache ages by the lab clock (which a replay moves to its recorded times)
   * instead of 15 s per request. @default false
   */
  readonly cacheOnLabClock?: boolean;
  /** pi-fold thresholds for fold arms (all but `fold-band`), completed from the package defaults. @default the package defaults */
  readonly foldThresholds?: Partial<Thresholds>;
  /**
   * Text appended to the system prompt on every request: a replay's stand-in for what the
   * recorded host sent besides the transcript (lab/replay/host-block.ts). @default none
   */
  readonly hostBlock?: string;
  /** Agent requests (0-based) at which the provider lost its cache, with what it kept (`SimulatedProviderOptions.cacheLosses`). @default none */
  readonly cacheLosses?: ReadonlyMap<number, number>;
  /** Provider tokens per lab token (`SimulatedProviderOptions.tokenScale`). @default 1 */
  readonly tokenScale?: number;
  /**
   * Pi's compaction reserve for an arm that compacts without pi-fold (native): a replay's
   * stand-in for the recorder's own compaction threshold (lab/replay/recorded-compaction.ts).
   * Fold arms keep Pi's default, since pi-fold answers Pi's threshold itself. @default Pi's
   */
  readonly compactionReserveTokens?: number;
  /** The landing every fold arm is forced to (`landing.ts`). @default PI_FOLD_LAB_LANDING, else the runtime's choice */
  readonly landing?: LandingStrategy;
  /**
   * A fold arm's store is kept here after the run, as a filesystem store `pi-fold view`
   * opens (`keep-store.ts`); other arms keep nothing. @default nothing is kept
   */
  readonly keepStoreIn?: string;
}

/** The name of the tool whose results count as file reads (Pi's). */
export const FILE_READ_TOOL = 'read';
/** Tools whose results count as file reads: Pi's `read`, and Claude Code's `Read` in replays of its sessions. */
const FILE_READ_TOOLS: ReadonlySet<string> = new Set([FILE_READ_TOOL, 'Read']);

/**
 * Run one arm to the end of its prompts (or its failure) and return what it did. Entry ids
 * are seeded from `settings.seed` and the clock is a counter while it runs, so the same
 * input gives the same rows (timings aside).
 */
export function runArm(input: RunArmInput): Promise<ArmResult> {
  return withLabDeterminism(input.settings.seed, () => runArmSession(input));
}

async function runArmSession(input: RunArmInput): Promise<ArmResult> {
  const profile = withLanding(
    armProfile(input.arm, input.settings, wholeThresholds(input.foldThresholds)),
    input.landing ?? landingFromEnvironment(),
  );
  const priceList = input.settings.prices ?? PRICE_LISTS[input.settings.priceList];
  if (priceList === undefined) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `unknown price list "${input.settings.priceList}" (known: ${Object.keys(PRICE_LISTS).join(', ')})`,
    );
  }
  const scratch = mkdtempSync(join(tmpdir(), 'pi-fold-lab-'));
  const tally = new ArmTally();
  const provider = armProvider(input, profile, priceList, tally);
  let session: AgentSession | undefined;
  let activity: SessionActivity | undefined;
  try {
    const opened = await openArmSession({ input, profile, priceList, scratch, provider, tally });
    session = opened.session;
    activity = new SessionActivity(session);
    let failure: string | undefined;
    const notes: string[] = [];
    for (const prompt of input.prompts) {
      activity.beginTurn();
      await session.prompt(prompt);
      const settled = await settleSession(session, activity);
      if (settled.note !== undefined) notes.push(settled.note);
      failure = settled.failure ?? turnFailure(session, opened.errors);
      if (failure !== undefined) break;
    }
    return await armResult({
      input,
      profile,
      priceList,
      provider,
      tally,
      session,
      registration: opened.registration(),
      stores: opened.stores,
      failure,
      notes,
    });
  } finally {
    if (session !== undefined) await closeSession(session, activity);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The profile with its fold setup forced to a landing, when one is asked. */
function withLanding(profile: ArmProfile, landing: LandingStrategy | undefined): ArmProfile {
  return profile.fold === undefined || landing === undefined
    ? profile
    : { ...profile, fold: { ...profile.fold, landing } };
}

function armProvider(
  input: RunArmInput,
  profile: ArmProfile,
  priceList: PriceList,
  tally: ArmTally,
): SimulatedProvider {
  return new SimulatedProvider({
    arm: input.arm,
    tokenizer: new WireTokenizer(),
    priceList,
    cacheRules: input.settings.cacheRules,
    capTokens: profile.capTokens,
    policy: input.policy,
    ...(input.onRow === undefined ? {} : { onRow: input.onRow }),
    ...(input.onPrompt === undefined ? {} : { onPrompt: input.onPrompt }),
    ...(input.cacheOnLabClock === true ? { clockSeconds: labClockSeconds } : {}),
    ...(input.cacheLosses === undefined ? {} : { cacheLosses: input.cacheLosses }),
    ...(input.tokenScale === undefined ? {} : { tokenScale: input.tokenScale }),
    attribution: {
      takeFoldCauses: () => tally.takeCauses(),
      takeMessageParts: () => tally.takeParts(),
      takeMessageEntryIds: () => tally.takeEntryIds(),
      compactionsDone: () => tally.compactions,
      isCompacting: () => tally.session?.isCompacting ?? false,
      takeHookMs: () => tally.hookTimer.take(),
    },
  });
}

interface ArmSessionInputs {
  readonly input: RunArmInput;
  readonly profile: ArmProfile;
  readonly priceList: PriceList;
  readonly scratch: string;
  readonly provider: SimulatedProvider;
  readonly tally: ArmTally;
}

/** A real Pi session on the simulated provider, with pi-fold (fold arms) or a peer's extension loaded. */
async function openArmSession({ input, profile, priceList, scratch, provider, tally }: ArmSessionInputs): Promise<{
  session: AgentSession;
  errors: string[];
  stores: ArmStores;
  registration: () => PiFoldRegistration | undefined;
}> {
  const cwd = input.cwd ?? scratch;
  const agentDirectory = join(scratch, 'agent');
  // Pi 0.x (the pinned host) and >= 0.74 (a peer's host, lab/peers) register providers differently.
  const models = await scriptedModelHost(scratch);
  models.registerProvider('lab', {
    api: 'lab-simulated',
    apiKey: 'offline',
    baseUrl: 'http://localhost:0',
    models: [
      {
        id: 'lab-model',
        name: 'Lab model',
        reasoning: false,
        input: ['text'],
        cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
        contextWindow: profile.contextWindow,
        maxTokens: 32_000,
      },
    ],
    streamSimple: provider.streamSimple as never,
  });
  const reserve = profile.fold === undefined && profile.compaction ? input.compactionReserveTokens : undefined;
  const settingsManager = SettingsManager.inMemory({
    compaction: { enabled: profile.compaction, ...(reserve === undefined ? {} : { reserveTokens: reserve }) },
  });
  let registration: PiFoldRegistration | undefined;
  // The store stamps puts on a clock of its own: Date.now is the lab's counter here, and a store
  // reading it would shift Pi's timestamps by when its writes happen to run.
  const stores: ArmStores = {
    foldStore: new MemoryFoldStore({ clock: () => performance.timeOrigin + performance.now() }),
    evidenceStore: new MemoryEvidenceStore(),
  };
  const onRegistered = (registered: PiFoldRegistration) => (registration = registered);
  const extensionFactories =
    profile.fold === undefined
      ? []
      : [
          foldFactory(
            profile.fold,
            priceList,
            stores,
            foldSettingsFile(scratch, profile.fold),
            tally.hookTimer,
            (projection) => tally.projected(projection),
            onRegistered,
          ),
        ];
  const resourceLoader = new DefaultResourceLoader({
    cwd,
    agentDir: agentDirectory,
    settingsManager,
    extensionFactories,
    ...(profile.extensionPath === undefined ? {} : { additionalExtensionPaths: [profile.extensionPath] }),
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
    ...(input.hostBlock === undefined || input.hostBlock.length === 0 ? {} : { appendSystemPrompt: [input.hostBlock] }),
  });
  await resourceLoader.reload();
  const { session } = await createAgentSession({
    cwd,
    agentDir: agentDirectory,
    model: models.find('lab', 'lab-model')!,
    ...models.sessionOptions,
    settingsManager,
    sessionManager: labSessionManager(
      cwd,
      input.arm,
      profile.extensionPath === undefined ? undefined : join(scratch, 'sessions'),
    ),
    resourceLoader,
    customTools: [...input.tools] as ToolDefinition[],
    noTools: 'builtin',
  });
  tally.session = session;
  const errors: string[] = [];
  await session.bindExtensions({
    onError: (error: { event: string; error: string }) => errors.push(`${error.event}: ${error.error}`),
  } as never);
  session.subscribe((event) => {
    if (event.type === 'compaction_end' && event.result !== undefined) tally.compactions += 1;
  });
  return { session, errors, stores, registration: () => registration };
}

interface ArmOutcome {
  readonly input: RunArmInput;
  readonly profile: ArmProfile;
  readonly priceList: PriceList;
  readonly provider: SimulatedProvider;
  readonly tally: ArmTally;
  readonly session: AgentSession;
  readonly registration: PiFoldRegistration | undefined;
  readonly stores: ArmStores;
  readonly failure: string | undefined;
  readonly notes: readonly string[];
}

/** The arm's rows and counts, with the settings its runtime really ran with and the byte audit of what it stored. */
async function armResult({
  input,
  profile,
  priceList,
  provider,
  tally,
  session,
  registration,
  stores,
  failure,
  notes,
}: ArmOutcome): Promise<ArmResult> {
  const reads = fileReads(session);
  const sessionId = session.sessionManager.getSessionId();
  const folding = await registration?.sessions.existing(sessionId);
  const ownership = folding?.ownership.warnings ?? [];
  const providerCache = folding?.runtime.view.scheduler.clock.learnedLosses();
  const checkedSettings =
    folding === undefined || profile.fold === undefined
      ? undefined
      : checkedFoldSettings(
          input.arm,
          { ...profile.fold, priceList: priceList.name },
          {
            ...folding.runtime.view.settings,
            priceList: folding.composed.ports.costModel.priceList.name,
            ...(folding.landing.used === undefined ? {} : { landing: folding.landing.used }),
            landingRequests: {
              sentByPi: folding.landing.counters.sentByPi,
              sentByHook: folding.landing.counters.sentByHook,
              landings: folding.landing.counters.landings,
            },
          },
        );
  const foldSettings =
    checkedSettings === undefined || providerCache === undefined || providerCache.losses === 0
      ? checkedSettings
      : { ...checkedSettings, providerCache };
  const bytes = await auditBytes({
    sessionId,
    originals: sessionOriginals(session.sessionManager.getBranch()),
    ...(profile.fold === undefined
      ? {}
      : {
          folds: { store: stores.foldStore, records: await stores.foldStore.listFolds(sessionId) },
          spills: { store: stores.evidenceStore, seen: tally.spills.values() },
        }),
  });
  if (input.keepStoreIn !== undefined && profile.fold !== undefined) {
    await folding?.composed.flushRequestLog();
    await keepArmStore(stores, sessionId, tally.spills.values(), input.keepStoreIn);
  }
  const rewrites = provider.rows.filter((row) => row.purpose !== 'summary' && row.event !== 'append');
  return {
    arm: input.arm,
    rows: provider.rows,
    compactions: tally.compactions,
    foldEvents: tally.foldEvents,
    rewritesAttributed: rewrites.filter((row) => row.event !== 'rewrite-unattributed').length,
    rewritesUnattributed: rewrites.filter((row) => row.event === 'rewrite-unattributed').length,
    fileReads: reads.count,
    fileBytes: reads.bytes,
    ...(registration === undefined
      ? {}
      : { ownershipWarnings: ownership.reduce((sum, warning) => sum + warning.occurrences, 0) }),
    ...(foldSettings === undefined ? {} : { foldSettings }),
    bytes,
    ...(failure === undefined ? {} : { failure }),
    ...(notes.length === 0 ? {} : { hostNotes: notes }),
  };
}

/**
 * A session with a fixed id: the id reaches the wire (evidence references), so a time-based
 * one would make runs differ. In memory, except for extension arms: a peer may keep its
 * evidence beside the session file (the published pi-fold refuses to run without one).
 */
function labSessionManager(cwd: string, arm: ArmName, sessionDirectory?: string): SessionManager {
  const sessionManager =
    sessionDirectory === undefined ? SessionManager.inMemory(cwd) : SessionManager.create(cwd, sessionDirectory);
  sessionManager.newSession({ id: `lab-${createHash('sha256').update(arm).digest('hex').slice(0, 12)}` });
  return sessionManager;
}

/** Why the turn ended without the model's own final answer, if it did. */
function turnFailure(session: AgentSession, errors: readonly string[]): string | undefined {
  if (errors.length > 0) return `extension error: ${errors.join('; ')}`;
  // Read from the end without copying: the list is the whole session, and this runs every turn.
  const messages = session.agent.state.messages;
  let last: (typeof messages)[number] | undefined;
  for (let index = messages.length - 1; index >= 0 && last === undefined; index -= 1)
    if (messages[index]!.role === 'assistant') last = messages[index];
  if (last === undefined || last.role !== 'assistant') return undefined;
  if (last.stopReason === 'error' || last.stopReason === 'aborted')
    return `${last.stopReason}: ${last.errorMessage ?? 'no message'}`;
  return undefined;
}

function fileReads(session: AgentSession): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const entry of session.sessionManager.getEntries()) {
    if (entry.type !== 'message' || entry.message.role !== 'toolResult' || !FILE_READ_TOOLS.has(entry.message.toolName))
      continue;
    count += 1;
    for (const part of entry.message.content) if (part.type === 'text') bytes += Buffer.byteLength(part.text, 'utf8');
  }
  return { count, bytes };
}
