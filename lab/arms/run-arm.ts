/**
 * The lab's arm harness: one arm of one workload through a REAL Pi `AgentSession`, with a
 * simulated provider that tokenizes, caches, bills and refuses like a real one.
 *
 * ```ts
 * const result: ArmResult = await runArm({
 *   arm: 'native',                       // unmanaged | native | fold | fold-band | fold-immediate | fold-eager | oracle | extension:<path>
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
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentSession, DefaultResourceLoader, SessionManager, SettingsManager, type AgentSession, type ExtensionAPI, type ToolDefinition } from '@mariozechner/pi-coding-agent';
import { registerPiFold, type PiFoldRegistration } from '../../adapters/pi/register-pi-fold.ts';
import { scriptedModelHost } from '../../testing/pi/scripted-host.ts';
import { MemoryEvidenceStore } from '../../adapters/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/storage-memory/memory-fold-store.ts';
import { FoldError } from '../../core/fold-error.ts';
import { createCharsCostModel } from '../../core/chars-cost-model.ts';
import { PRICE_LISTS } from '../../core/price-lists.ts';
import { COST_MODEL } from '../../composition/tokens.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';
import type { Thresholds } from '../../core/settings.ts';
import type { Projection } from '../../ports/projection-sink.port.ts';
import { SimulatedProvider, type ModelPolicy } from '../provider/simulated-provider.ts';
import { WireTokenizer } from '../provider/wire-tokens.ts';
import type { ArmName, ArmResult, FoldArmSettings, LabRunSettings, RequestRow } from '../report/lab-records.ts';
import { windowPartOf, type WindowPart } from '../report/window-parts.ts';
import { armProfile, wholeThresholds, type FoldArmSetup } from './arm-profile.ts';
import { auditBytes, sessionOriginals, type SeenSpill } from './byte-audit.ts';
import { HookTimer } from './hook-timer.ts';
import { labClockSeconds, withLabDeterminism } from './seeded-ids.ts';
import { SessionActivity, settleSession } from './settle-session.ts';

export type { ModelPolicy, ModelRequest, ScriptedReply } from '../provider/simulated-provider.ts';

/** One arm to run. */
export interface RunArmInput {
  readonly arm: ArmName;
  readonly settings: LabRunSettings;
  /** Every tool the session offers (Pi's built-ins are not added: pass `createReadToolDefinition(cwd)` for `read`). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- Pi's own tool definitions carry their own parameter and detail types
  readonly tools: readonly ToolDefinition<any, any>[];
  /** One user message per turn, in order. */
  readonly prompts: readonly string[];
  readonly policy: ModelPolicy;
  /** The session's working directory. @default a fresh temporary directory */
  readonly cwd?: string;
  /** Called with every request row as it is billed (progress bars). */
  readonly onRow?: (row: RequestRow) => void;
  /**
   * The simulated cache ages by the lab clock (which a replay moves to its recorded times)
   * instead of 15 s per request. @default false
   */
  readonly cacheOnLabClock?: boolean;
  /** pi-fold thresholds for fold arms (all but `fold-band`), completed from the package defaults. @default the package defaults */
  readonly foldThresholds?: Partial<Thresholds>;
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
  const profile = armProfile(input.arm, input.settings, wholeThresholds(input.foldThresholds));
  const priceList = PRICE_LISTS[input.settings.priceList];
  if (priceList === undefined) {
    throw new FoldError('SETTINGS.INVALID', `unknown price list "${input.settings.priceList}" (known: ${Object.keys(PRICE_LISTS).join(', ')})`);
  }
  const scratch = mkdtempSync(join(tmpdir(), 'pi-fold-lab-'));
  const cwd = input.cwd ?? scratch;
  const agentDirectory = join(scratch, 'agent');
  const hookTimer = new HookTimer();
  const counters = { compactions: 0, foldEvents: 0, pendingCauses: undefined as readonly string[] | undefined, pendingParts: undefined as readonly WindowPart[] | undefined };
  let session: AgentSession | undefined;
  const provider = new SimulatedProvider({
    arm: input.arm,
    tokenizer: new WireTokenizer(),
    priceList,
    cacheRules: input.settings.cacheRules,
    capTokens: profile.capTokens,
    policy: input.policy,
    ...(input.onRow === undefined ? {} : { onRow: input.onRow }),
    ...(input.cacheOnLabClock === true ? { clockSeconds: labClockSeconds } : {}),
    attribution: {
      takeFoldCauses: () => {
        const causes = counters.pendingCauses;
        counters.pendingCauses = undefined;
        return causes;
      },
      takeMessageParts: () => {
        const parts = counters.pendingParts;
        counters.pendingParts = undefined;
        return parts;
      },
      compactionsDone: () => counters.compactions,
      isCompacting: () => session?.isCompacting ?? false,
      takeHookMs: () => hookTimer.take(),
    },
  });
  try {
    // Pi 0.x (the pinned host) and >= 0.74 (a peer's host, lab/peers) register providers differently.
    const models = await scriptedModelHost(scratch);
    models.registerProvider('lab', {
      api: 'lab-simulated',
      apiKey: 'offline',
      baseUrl: 'http://localhost:0',
      models: [{ id: 'lab-model', name: 'Lab model', reasoning: false, input: ['text'], cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: profile.contextWindow, maxTokens: 32_000 }],
      streamSimple: provider.streamSimple as never,
    });
    const settingsManager = SettingsManager.inMemory({ compaction: { enabled: profile.compaction } });
    let registration: PiFoldRegistration | undefined;
    const stores = { foldStore: new MemoryFoldStore(), evidenceStore: new MemoryEvidenceStore() };
    const spills = new Map<string, SeenSpill>();
    const extensionFactories = profile.fold === undefined ? [] : [foldFactory(profile.fold, priceList, stores, foldSettingsFile(scratch, profile.fold), hookTimer, (projection) => {
      counters.pendingCauses = projection.ledger.causes;
      counters.pendingParts = projection.messages.map(windowPartOf);
      counters.foldEvents += projection.ledger.foldsLanded;
      noteSpills(projection, spills);
    }, (registered) => {
      registration = registered;
    })];
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
    });
    await resourceLoader.reload();
    const created = await createAgentSession({
      cwd,
      agentDir: agentDirectory,
      model: models.find('lab', 'lab-model')!,
      ...models.sessionOptions,
      settingsManager,
      sessionManager: labSessionManager(cwd, input.arm, profile.extensionPath === undefined ? undefined : join(scratch, 'sessions')),
      resourceLoader,
      customTools: [...input.tools] as ToolDefinition[],
      noTools: 'builtin',
    });
    session = created.session;
    const errors: string[] = [];
    await session.bindExtensions({ onError: (error: { event: string; error: string }) => errors.push(`${error.event}: ${error.error}`) } as never);
    session.subscribe((event) => {
      if (event.type === 'compaction_end' && event.result !== undefined) counters.compactions += 1;
    });
    const activity = new SessionActivity(session);
    let failure: string | undefined;
    for (const prompt of input.prompts) {
      activity.beginTurn();
      await session.prompt(prompt);
      await settleSession(session, activity);
      failure = turnFailure(session, errors);
      if (failure !== undefined) break;
    }
    const reads = fileReads(session);
    const folding = await registration?.sessions.existing(session.sessionManager.getSessionId());
    const ownership = folding?.ownership.warnings ?? [];
    const foldSettings = folding === undefined || profile.fold === undefined ? undefined : checkedFoldSettings(input.arm, { ...profile.fold, priceList: priceList.name }, { ...folding.runtime.view.settings, priceList: folding.composed.container.resolve(COST_MODEL).priceList.name });
    const sessionId = session.sessionManager.getSessionId();
    const bytes = await auditBytes({
      sessionId,
      originals: sessionOriginals(session.sessionManager.getBranch()),
      ...(profile.fold === undefined ? {} : { folds: { store: stores.foldStore, records: await stores.foldStore.listFolds(sessionId) }, spills: { store: stores.evidenceStore, seen: spills.values() } }),
    });
    const rewrites = provider.rows.filter((row) => row.purpose !== 'summary' && row.event !== 'append');
    return {
      arm: input.arm,
      rows: provider.rows,
      compactions: counters.compactions,
      foldEvents: counters.foldEvents,
      rewritesAttributed: rewrites.filter((row) => row.event !== 'rewrite-unattributed').length,
      rewritesUnattributed: rewrites.filter((row) => row.event === 'rewrite-unattributed').length,
      fileReads: reads.count,
      fileBytes: reads.bytes,
      ...(registration === undefined ? {} : { ownershipWarnings: ownership.reduce((sum, warning) => sum + warning.occurrences, 0) }),
      ...(foldSettings === undefined ? {} : { foldSettings }),
      bytes,
      ...(failure === undefined ? {} : { failure }),
    };
  } finally {
    session?.dispose();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * A session with a fixed id: the id reaches the wire (evidence references), so a time-based
 * one would make runs differ. In memory, except for extension arms: a peer may keep its
 * evidence beside the session file (the published pi-fold refuses to run without one).
 */
function labSessionManager(cwd: string, arm: ArmName, sessionDirectory?: string): SessionManager {
  const sessionManager = sessionDirectory === undefined ? SessionManager.inMemory(cwd) : SessionManager.create(cwd, sessionDirectory);
  sessionManager.newSession({ id: `lab-${createHash('sha256').update(arm).digest('hex').slice(0, 12)}` });
  return sessionManager;
}

/**
 * pi-fold as a fold arm loads it. Its scheduler decides with the price list the provider
 * bills by (a replay's: the recorded model's), not the ledger default: a fold arm that weighed
 * other prices than it is billed would be measured under a policy no real host runs.
 */
function foldFactory(fold: FoldArmSetup, priceList: PriceList, stores: { readonly foldStore: MemoryFoldStore; readonly evidenceStore: MemoryEvidenceStore }, settingsPath: string, hookTimer: HookTimer, onProjection: (projection: Projection) => void, onRegistered: (registration: PiFoldRegistration) => void): (pi: ExtensionAPI) => void {
  return (pi) => {
    const registration = registerPiFold(hookTimer.wrap(pi), {
      ...stores,
      settingsPath,
      settings: { providerInputBudget: fold.providerInputBudget, ...(fold.scheduling === undefined ? {} : { scheduling: fold.scheduling }), ...(fold.thresholds === undefined ? {} : { thresholds: fold.thresholds }) },
      projectionSink: { specificationVersion: 'v1', accept: onProjection },
      costModel: createCharsCostModel({ priceList }),
    });
    onRegistered(registration);
  };
}

/**
 * The settings file a fold arm's runtime reads. Pi's registration lets the file's thresholds
 * win over the ones passed in code, so an arm's thresholds are also written to a file of its
 * own; without thresholds the path does not exist: the package defaults, never this machine's file.
 */
function foldSettingsFile(scratch: string, fold: FoldArmSetup): string {
  const path = join(scratch, 'pi-fold-settings.json');
  if (fold.thresholds !== undefined) writeFileSync(path, `${JSON.stringify({ thresholds: fold.thresholds })}\n`);
  return path;
}

/** The settings the runtime really ran with, refused when they are not the arm's (a lab figure under the wrong policy is worse than none). */
export function checkedFoldSettings(
  arm: ArmName,
  asked: FoldArmSetup & { readonly priceList?: string },
  running: { readonly scheduling: string; readonly thresholds: Thresholds; readonly priceList?: string },
): FoldArmSettings {
  const { maxTarget, minTarget, consolidateAfter, minFoldChars } = running.thresholds;
  const effective: FoldArmSettings = { scheduling: running.scheduling, thresholds: { maxTarget, minTarget, consolidateAfter, minFoldChars }, ...(running.priceList === undefined ? {} : { priceList: running.priceList }) };
  const thresholdsDiffer = asked.thresholds !== undefined && (Object.keys(asked.thresholds) as (keyof Thresholds)[]).some((key) => asked.thresholds![key] !== running.thresholds[key]);
  const schedulingDiffers = asked.scheduling !== undefined && asked.scheduling !== running.scheduling;
  const pricesDiffer = asked.priceList !== undefined && asked.priceList !== running.priceList;
  if (thresholdsDiffer || schedulingDiffers || pricesDiffer) {
    throw new FoldError('SETTINGS.INVALID', `arm ${arm}: its settings did not reach the runtime: asked ${JSON.stringify({ scheduling: asked.scheduling, thresholds: asked.thresholds, priceList: asked.priceList })}, the runtime ran with ${JSON.stringify(effective)}`, { details: { arm } });
  }
  return effective;
}

/** Every spill a window showed, by id: the byte audit checks each one's evidence after the run. */
function noteSpills(projection: Projection, spills: Map<string, SeenSpill>): void {
  for (const message of projection.messages) {
    if (message.kind !== 'spilled') continue;
    for (const pointer of message.spills) if (!spills.has(pointer.id)) spills.set(pointer.id, { pointer, entryId: message.entryId });
  }
}

/** Why the turn ended without the model's own final answer, if it did. */
function turnFailure(session: AgentSession, errors: readonly string[]): string | undefined {
  if (errors.length > 0) return `extension error: ${errors.join('; ')}`;
  const last = [...session.agent.state.messages].reverse().find((message) => message.role === 'assistant');
  if (last === undefined || last.role !== 'assistant') return undefined;
  if (last.stopReason === 'error' || last.stopReason === 'aborted') return `${last.stopReason}: ${last.errorMessage ?? 'no message'}`;
  return undefined;
}

function fileReads(session: AgentSession): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  for (const entry of session.sessionManager.getEntries()) {
    if (entry.type !== 'message' || entry.message.role !== 'toolResult' || !FILE_READ_TOOLS.has(entry.message.toolName)) continue;
    count += 1;
    for (const part of entry.message.content) if (part.type === 'text') bytes += Buffer.byteLength(part.text, 'utf8');
  }
  return { count, bytes };
}
