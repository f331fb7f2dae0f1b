/**
 * One AI SDK arm of the staged workload: the real `generateText` tool loop, the SDK's own
 * test model answering through the lab's simulated provider, and the arm's way of keeping
 * the history in bounds (none, `pruneMessages`, the provider's clearing, or pi-fold).
 */
import type { ToolDefinition } from '@mariozechner/pi-coding-agent';
import { generateText, type ModelMessage, stepCountIs, type Tool, ToolLoopAgent } from 'ai';
import { MemoryEvidenceStore } from '../../adapters/backends/storage-memory/memory-evidence-store.ts';
import { MemoryFoldStore } from '../../adapters/backends/storage-memory/memory-fold-store.ts';
import { createFolding, type Folding } from '../../adapters/hosts/vercel-ai/create-folding.ts';
import { FoldError } from '../../core/fold-error.ts';
import { createCharsCostModel } from '../../core/pricing/chars-cost-model.ts';
import { PRICE_LISTS } from '../../core/pricing/price-lists.ts';
import type { PriceList } from '../../ports/cost-model.port.ts';
import { ArmTally } from '../arms/arm-tally.ts';
import { withLabDeterminism } from '../arms/seeded-ids.ts';
import { type BilledPrompt, type ModelPolicy, SimulatedProvider } from '../provider/simulated-provider.ts';
import { WireTokenizer } from '../provider/wire-tokens.ts';
import type { ArmResult, LabRunSettings, RequestRow } from '../report/lab-records.ts';
import { FOLD_TOOL } from '../workload/window-files.ts';
import { piToolAsSdkTool } from './pi-tool-bridge.ts';
import { SDK_ARMS, type SdkArmName, type SdkArmSetup } from './sdk-arms.ts';
import { historyPruner } from './sdk-history.ts';
import { applyServerClearing, clearingRulesFor } from './server-clearing.ts';
import { type ProviderEdit, simulatedSdkModel } from './simulated-sdk-model.ts';

export interface RunSdkArmInput {
  readonly arm: SdkArmName;
  readonly settings: LabRunSettings;
  /** The workload's tools, as Pi tool definitions (bridged to AI SDK tools unchanged). */
  // biome-ignore lint/suspicious/noExplicitAny: Pi's own tool definitions carry their own parameter and detail types
  readonly tools: readonly ToolDefinition<any, any>[];
  readonly prompts: readonly string[];
  readonly policy: ModelPolicy;
  readonly onRow?: (row: RequestRow) => void;
  /** Each agent prompt as billed, with the entries pi-fold says it shows: what the cost bound is taken on. */
  readonly onPrompt?: (billed: BilledPrompt) => void;
  /** Which of the SDK's loops drives the arm. @default 'generate-text' */
  readonly loop?: SdkLoop;
}

/** The SDK's two tool loops: `generateText` with `stopWhen`, or a `ToolLoopAgent`. */
export type SdkLoop = 'generate-text' | 'tool-loop-agent';

/** The system prompt of every AI SDK arm: a host's short instruction, the same for all arms. */
export const SDK_SYSTEM_PROMPT = 'You are a coding agent working in a repository. Use the tools to do the assignment.';

/** Steps one loop may take: far above what the workload needs, so only the agent ends it. */
const MAX_STEPS = 10_000;

/** The file-read tool whose results count as reads. */
const READ_TOOL = 'read';

export function runSdkArm(input: RunSdkArmInput): Promise<ArmResult> {
  return withLabDeterminism(input.settings.seed, () => runSdkArmLoop(input));
}

async function runSdkArmLoop(input: RunSdkArmInput): Promise<ArmResult> {
  const setup: SdkArmSetup = SDK_ARMS[input.arm];
  const priceList = PRICE_LISTS[input.settings.priceList];
  if (priceList === undefined)
    throw new FoldError('SETTINGS.INVALID', `unknown price list "${input.settings.priceList}"`);
  const tally: LoopTally = { fold: new ArmTally(), edits: 0, hookMs: 0, lastPromptTokens: 0 };
  const tokenizer = new WireTokenizer();
  const provider = sdkProvider(input, priceList, tokenizer, tally);
  const folding = setup.kind === 'fold' ? await armFolding(input, setup, priceList, tally) : undefined;
  const model = simulatedSdkModel(provider, providerEdit(setup, input.settings.descriptorTokens, tokenizer, tally));
  const reads = { count: 0, bytes: 0 };
  const countRead = (text: string) => {
    reads.count += 1;
    reads.bytes += Buffer.byteLength(text, 'utf8');
  };
  const tools: Record<string, Tool> = Object.fromEntries(
    input.tools.map((tool) => [tool.name, piToolAsSdkTool(tool, tool.name === READ_TOOL ? countRead : undefined)]),
  );
  if (folding !== undefined) Object.assign(tools, folding.tools);
  const history: ModelMessage[] = [];
  let failure: string | undefined;
  try {
    for (const prompt of input.prompts) {
      history.push({ role: 'user', content: prompt });
      const loop = {
        model: folding === undefined ? model : folding.wrapModel(model),
        tools,
        stopWhen: stepCountIs(MAX_STEPS),
        maxRetries: 0,
        prepareStep: stepPreparer(setup, input.settings, folding, tally),
      };
      const result =
        input.loop === 'tool-loop-agent'
          ? await new ToolLoopAgent({ ...loop, instructions: SDK_SYSTEM_PROMPT }).generate({ messages: [...history] })
          : await generateText({ ...loop, system: SDK_SYSTEM_PROMPT, messages: [...history] });
      history.push(...responseMessagesOf(result));
    }
  } catch (error) {
    failure = `error: ${error instanceof Error ? error.message : String(error)}`;
  } finally {
    await folding?.dispose();
  }
  return sdkArmResult(input.arm, provider, tally, reads, failure);
}

/** What an arm's loop tells its provider between requests (attribution, hook time). */
interface LoopTally {
  readonly fold: ArmTally;
  /** Lossy edits made so far, by the host's pruning or the provider's clearing. */
  edits: number;
  /** Milliseconds spent in the arm's `prepareStep` since the last request. */
  hookMs: number;
  /** The last billed prompt's tokens (a held prune decides with it). */
  lastPromptTokens: number;
}

function sdkProvider(input: RunSdkArmInput, priceList: PriceList, tokenizer: WireTokenizer, tally: LoopTally) {
  return new SimulatedProvider({
    arm: input.arm,
    tokenizer,
    priceList,
    cacheRules: input.settings.cacheRules,
    capTokens: input.settings.providerCapTokens,
    policy: input.policy,
    onRow: (row) => {
      if (!row.rejected) tally.lastPromptTokens = row.promptTokens;
      input.onRow?.(row);
    },
    ...(input.onPrompt === undefined ? {} : { onPrompt: input.onPrompt }),
    attribution: {
      takeFoldCauses: () => tally.fold.takeCauses(),
      takeMessageParts: () => tally.fold.takeParts(),
      takeMessageEntryIds: () => tally.fold.takeEntryIds(),
      // The AI SDK adapter gives its entries no contentChars: the runtime's floor counts the window form.
      takeMessageReadChars: () => tally.fold.takeReadChars(),
      // A prune or a clearing is the host's or the provider's own lossy edit: attributed like a compaction.
      compactionsDone: () => tally.edits,
      isCompacting: () => false,
      takeHookMs: () => {
        const spent = tally.hookMs;
        tally.hookMs = 0;
        return spent;
      },
    },
  });
}

/** pi-fold for a fold arm: the lab's budget and price list, the workload's fold-tool name, stores in memory. */
async function armFolding(
  input: RunSdkArmInput,
  setup: Extract<SdkArmSetup, { kind: 'fold' }>,
  priceList: PriceList,
  tally: LoopTally,
): Promise<Folding> {
  return createFolding({
    sessionId: `lab-ai-sdk-${input.arm}`,
    store: new MemoryFoldStore({ clock: () => performance.timeOrigin + performance.now() }),
    evidenceStore: new MemoryEvidenceStore(),
    settings: {
      providerInputBudget: input.settings.descriptorTokens,
      toolName: FOLD_TOOL,
      ...(setup.scheduling === undefined ? {} : { scheduling: setup.scheduling }),
    },
    costModel: createCharsCostModel({ priceList }),
    projectionSink: { specificationVersion: 'v1', accept: (projection) => tally.fold.projected(projection) },
    onWarning: () => {},
  });
}

/** The provider's own edit of each prompt: Anthropic's clearing for `server-clear`, none otherwise. */
function providerEdit(
  setup: SdkArmSetup,
  windowTokens: number,
  tokenizer: WireTokenizer,
  tally: LoopTally,
): ProviderEdit | undefined {
  if (setup.kind !== 'server-clear') return undefined;
  const rules = clearingRulesFor(setup.rules, windowTokens);
  return (context) => {
    const promptTokens = tokenizer.prompt(context).reduce((sum, part) => sum + part.tokens.length, 0);
    const outcome = applyServerClearing(context, promptTokens, rules, (text) => tokenizer.count(text));
    if (outcome.clearedToolUses > 0) tally.edits += 1;
    return outcome.context;
  };
}

type PrepareStep = NonNullable<Parameters<typeof generateText>[0]['prepareStep']>;

/** The arm's `prepareStep`: pi-fold's projection, a prune, or none. */
function stepPreparer(
  setup: SdkArmSetup,
  settings: LabRunSettings,
  folding: Folding | undefined,
  tally: LoopTally,
): PrepareStep | undefined {
  if (folding !== undefined)
    return async (step) => {
      const started = performance.now();
      try {
        return await folding.prepareStep(step);
      } finally {
        tally.hookMs += performance.now() - started;
      }
    };
  const prune = historyPruner(setup, settings.descriptorTokens);
  if (prune === undefined) return undefined;
  return ({ messages }) => {
    const started = performance.now();
    const kept = prune(messages, tally.lastPromptTokens);
    if (
      kept !== undefined &&
      (kept.length !== messages.length || kept.some((message, index) => message !== messages[index]))
    )
      tally.edits += 1;
    tally.hookMs += performance.now() - started;
    return kept === undefined ? undefined : { messages: kept };
  };
}

/**
 * Every message the call's steps produced. ai@6 puts them in `response.messages`; ai@7 in
 * `responseMessages`, its `response` being the last step's metadata.
 */
function responseMessagesOf(result: { readonly response: { readonly messages: readonly ModelMessage[] } }) {
  const all = (result as { readonly responseMessages?: readonly ModelMessage[] }).responseMessages;
  return all ?? result.response.messages;
}

/** The arm's rows and counts, in the shape every lab report reads. */
function sdkArmResult(
  arm: SdkArmName,
  provider: SimulatedProvider,
  tally: LoopTally,
  reads: { readonly count: number; readonly bytes: number },
  failure: string | undefined,
): ArmResult {
  const rewrites = provider.rows.filter((row) => row.event !== 'append');
  return {
    arm,
    rows: provider.rows,
    compactions: provider.rows.filter((row) => row.event === 'compaction').length,
    foldEvents: tally.fold.foldEvents,
    rewritesAttributed: rewrites.filter((row) => row.event !== 'rewrite-unattributed').length,
    rewritesUnattributed: rewrites.filter((row) => row.event === 'rewrite-unattributed').length,
    fileReads: reads.count,
    fileBytes: reads.bytes,
    ...(failure === undefined ? {} : { failure }),
  };
}
