import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Message } from '@mariozechner/pi-ai';
import {
  type AgentSession,
  createAgentSession,
  DefaultResourceLoader,
  type ExtensionAPI,
  type ModelRegistry,
  SessionManager,
  SettingsManager,
  type ToolDefinition,
  VERSION,
} from '@mariozechner/pi-coding-agent';
import { Type } from 'typebox';
import type { PiHostScope } from '../../adapters/hosts/pi/host-api.ts';
import { type PiFoldRegistration, registerPiFold } from '../../adapters/hosts/pi/register-pi-fold.ts';
import type { PiFoldOptions } from '../../adapters/hosts/pi/session-registry.ts';
import type { LedgerRow, Projection, ProjectionSink } from '../../ports/projection-sink.port.ts';
import { notifyingUi, type ProviderConfig, scriptedModelHost } from './scripted-host.ts';
import { type RecordedRequest, type ScriptedProviderOptions, scriptedProvider } from './scripted-provider.ts';

export type { RecordedRequest, Script, ScriptedReply } from './scripted-provider.ts';
export { CONTEXT_WINDOW } from './scripted-provider.ts';

/**
 * The Pi these suites drive: the root's 0.x (`@mariozechner`) on Node 20, or the current 1.x
 * (`@earendil-works`) when the compatibility job maps the imports (compat/node22).
 */
export const PI_VERSION: string = VERSION;
export const PI_HOST_SCOPE: PiHostScope = VERSION.startsWith('0.') ? '@mariozechner' : '@earendil-works';

/** Deterministic filler text of `size` chars for tool results. */
export function blobText(seed: number, size: number): string {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'omega', 'sigma', 'kappa', 'lambda', 'theta', 'zeta'];
  const parts: string[] = [`blob ${seed} begins.`];
  let length = parts[0]!.length;
  let state = seed * 7919 + 13;
  while (length < size) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const word = `${words[state % words.length]}${state % 97}`;
    parts.push(word);
    length += word.length + 1;
  }
  return parts.join(' ').slice(0, size);
}

/** A tool that returns a deterministic blob of the requested size (the agent's "reads"). */
export const fetchBlobTool: ToolDefinition = {
  name: 'fetch_blob',
  label: 'Fetch blob',
  description: 'Return a deterministic blob of text',
  parameters: Type.Object({ seed: Type.Integer(), size: Type.Integer() }),
  async execute(_id, params) {
    const { seed, size } = params as { seed: number; size: number };
    return { content: [{ type: 'text', text: blobText(seed, size) }], details: {} };
  },
};

export interface ScriptedPi {
  readonly session: AgentSession;
  readonly requests: RecordedRequest[];
  readonly ledger: LedgerRow[];
  readonly registration: PiFoldRegistration;
  readonly notices: string[];
  /** Errors Pi caught in extension handlers (must stay empty). */
  readonly errors: string[];
  readonly sessionManager: SessionManager;
  /** A scripted model by id (`s1`, or one of `extraModels`), e.g. for `session.setModel`. */
  readonly model: (id: string) => NonNullable<ReturnType<ModelRegistry['find']>>;
}

/**
 * Settings that keep the harness's 20–24 KB `fetch_blob` results raw (a spill threshold
 * above them, docs/behaviour.md B6.2): for tests of folding, commits and recovery that need the window to fill
 * at the pace of whole results. Spill itself is tested with the default policy.
 */
export const KEEP_BLOBS_RAW: Readonly<Record<string, unknown>> = Object.freeze({
  spill: { thresholdBytes: 65_536, keepBytes: 4_096 },
});

/** Options for one scripted Pi session (the provider's own are in ScriptedProviderOptions). */
export interface ScriptedPiOptions extends ScriptedProviderOptions {
  readonly fold: PiFoldOptions;
  /** An existing session file to reopen (restart), else a new session in `sessionDirectory`. */
  readonly sessionFile?: string;
  readonly sessionDirectory?: string;
  readonly compaction?: boolean;
  /** Wrap the extension API pi-fold registers on (the benchmark times the context hook this way). */
  readonly wrapExtensionApi?: (pi: ExtensionAPI) => ExtensionAPI;
  /** Other extensions loaded before and after pi-fold (a rival context manager). */
  readonly otherExtensions?: {
    readonly before?: readonly ((pi: ExtensionAPI) => void)[];
    readonly after?: readonly ((pi: ExtensionAPI) => void)[];
  };
  /** Tools the session offers beside `fetch_blob`. */
  readonly extraTools?: readonly ToolDefinition[];
  /** More providers beside `scripted`, e.g. one on pi-ai's own API code against a local server. */
  readonly providers?: readonly { readonly name: string; readonly config: ProviderConfig }[];
  /** The model the session starts on. @default the scripted `s1` */
  readonly startModel?: { readonly provider: string; readonly id: string };
}

/**
 * A real Pi AgentSession, fully offline: a provider registered through ModelRegistry whose
 * `streamSimple` records exactly what the model receives and answers from a script, with
 * pi-fold loaded as an extension factory and a `fetch_blob` tool for large results.
 */
export async function openScriptedPi(options: ScriptedPiOptions): Promise<ScriptedPi> {
  const opened = await openSession(options, true);
  if (opened.registration === undefined) throw new Error('pi-fold did not register');
  return { ...opened, registration: opened.registration };
}

/** The same scripted Pi session without pi-fold: the host alone, the reference the latency benchmark measures against. */
export async function openScriptedHostAlone(
  options: Omit<ScriptedPiOptions, 'fold' | 'wrapExtensionApi'>,
): Promise<Omit<ScriptedPi, 'registration' | 'ledger'>> {
  const { registration: _none, ledger: _empty, ...opened } = await openSession({ ...options, fold: {} }, false);
  return opened;
}

async function openSession(
  options: ScriptedPiOptions,
  withFold: boolean,
): Promise<Omit<ScriptedPi, 'registration'> & { registration: PiFoldRegistration | undefined }> {
  const requests: RecordedRequest[] = [];
  const ledger: LedgerRow[] = [];
  const notices: string[] = [];
  const errors: string[] = [];
  const workDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-pi-'));
  const agentDirectory = join(workDirectory, 'agent');
  const models = await scriptedModelHost(workDirectory);
  models.registerProvider('scripted', scriptedProvider(options, { requests, errors }));
  for (const provider of options.providers ?? []) models.registerProvider(provider.name, provider.config);
  const start = options.startModel ?? { provider: 'scripted', id: 's1' };
  const startModel = models.find(start.provider, start.id);
  // Said here rather than left to Pi, which would start on no model and send nothing.
  if (startModel === undefined)
    throw new Error(
      `scripted Pi: no model ${start.id} of provider ${start.provider} (is the provider in options.providers?)`,
    );
  const settingsManager = SettingsManager.inMemory({ compaction: { enabled: options.compaction ?? true } });
  let registration: PiFoldRegistration | undefined;
  const sink: ProjectionSink = {
    specificationVersion: 'v1' as const,
    accept: (projection: Projection) => {
      ledger.push(projection.ledger);
      options.fold.projectionSink?.accept(projection);
    },
  };
  const resourceLoader = new DefaultResourceLoader({
    cwd: workDirectory,
    agentDir: agentDirectory,
    settingsManager,
    extensionFactories: extensionFactories(
      options,
      withFold ? (registered) => (registration = registered) : undefined,
      sink,
    ),
    noSkills: true,
    noPromptTemplates: true,
    noThemes: true,
    noContextFiles: true,
  });
  await resourceLoader.reload();
  const sessionDirectory = options.sessionDirectory ?? join(workDirectory, 'sessions');
  const sessionManager =
    options.sessionFile === undefined
      ? SessionManager.create(workDirectory, sessionDirectory)
      : SessionManager.open(options.sessionFile, sessionDirectory);
  const { session } = await createAgentSession({
    cwd: workDirectory,
    agentDir: agentDirectory,
    model: startModel,
    ...models.sessionOptions,
    settingsManager,
    sessionManager,
    resourceLoader,
    customTools: [fetchBlobTool, ...(options.extraTools ?? [])],
  });
  await session.bindExtensions({
    uiContext: notifyingUi(notices),
    onError: (error: { event: string; error: string }) => errors.push(`${error.event}: ${error.error}`),
  } as never);
  const model = (id: string) => {
    const found = models.find('scripted', id);
    if (found === undefined) throw new Error(`no scripted model ${id}`);
    return found;
  };
  return { session, requests, ledger, registration, notices, errors, sessionManager, model };
}

/** The session's extensions: the other extensions around pi-fold, which registers on its (wrapped) API when `registered` is given. */
function extensionFactories(
  options: ScriptedPiOptions,
  registered: ((registration: PiFoldRegistration) => void) | undefined,
  sink: ProjectionSink,
): ((pi: ExtensionAPI) => void)[] {
  const piFold = (pi: ExtensionAPI) =>
    registered?.(
      registerPiFold(options.wrapExtensionApi === undefined ? pi : options.wrapExtensionApi(pi), {
        ...options.fold,
        projectionSink: sink,
      }),
    );
  return [
    ...(options.otherExtensions?.before ?? []),
    ...(registered === undefined ? [] : [piFold]),
    ...(options.otherExtensions?.after ?? []),
  ];
}

/** Wait until Pi has finished any compaction or retry it started after a prompt. */
export async function settle(session: AgentSession): Promise<void> {
  for (let round = 0; round < 200; round += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (!session.isCompacting && !session.isStreaming) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      if (!session.isCompacting && !session.isStreaming) return;
    }
  }
}

/** Tool call ids of the last assistant message in a request that came back with results. */
export function lastToolResults(request: RecordedRequest): Message[] {
  const out: Message[] = [];
  for (let position = request.messages.length - 1; position >= 0; position -= 1) {
    const message = request.messages[position]!;
    if (message.role !== 'toolResult') break;
    out.unshift(message);
  }
  return out;
}
