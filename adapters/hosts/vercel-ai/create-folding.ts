import {
  type LanguageModelMiddleware,
  type ModelMessage,
  type PrepareStepFunction,
  type PrepareStepResult,
  type Tool,
  wrapLanguageModel,
} from 'ai';
import { composeFoldRuntime, type FoldRuntimeOptions } from '../../../composition/create-fold-runtime.ts';
import {
  assertKnownOptions,
  assertSessionIdOption,
  describeValue,
  RUNTIME_OPTION_KEYS,
} from '../../../composition/option-checks.ts';
import { FoldError } from '../../../core/fold-error.ts';
import type { FoldRuntime, ProjectionResult, RequestContext } from '../../../core/fold-runtime.ts';
import { foldToolNeeded, TOOL_OFFERS, type ToolOffer } from '../../../core/settings/tool-offer.ts';
import type { CommitTelemetry } from '../../../ports/projection-sink.port.ts';
import type { TranscriptEntry } from '../../../ports/transcript-source.port.ts';
import { type StepInput, stepHistory } from './ai-sdk-version.ts';
import { createFoldContextTool, type FoldContextInput } from './fold-context-tool.ts';
import { MessageEntryMapper } from './message-entries.ts';
import { MessageHistorySource } from './message-history-source.ts';
import { ProjectedMessageConverter } from './projected-messages.ts';
import { createUsageMiddleware, type PromptRecord } from './usage-middleware.ts';

/** A language model `wrapLanguageModel` accepts: spec V3 under ai@6; V2, V3 or V4 under ai@7. */
export type LanguageModelV3 = Parameters<typeof wrapLanguageModel>[0]['model'];

/** Options of `createFolding`: the runtime's own options plus what only an AI SDK host knows. */
export interface FoldingOptions extends FoldRuntimeOptions {
  /**
   * The model's context window in tokens; the budget when `settings.providerInputBudget` is not set.
   * One of the two is required.
   */
  readonly contextWindow?: number;
  /** Called with every final prompt the middleware sees (tests, attribution). */
  readonly onPrompt?: (record: PromptRecord) => void;
  /** Called with soft problems (e.g. a commit skipped because the store failed). @default console.warn */
  readonly onWarning?: (warning: string) => void;
  /**
   * Called when a commit lands and again when the provider has measured the request that
   * carried it (the machine-readable event a host logs; `runtime.view.telemetry.recent` keeps the latest).
   */
  readonly onCommitTelemetry?: (event: CommitTelemetry) => void;
  /**
   * When the model is offered the fold tool (core/settings/tool-offer.ts): `'always'`, or
   * `'when-needed'`: the middleware leaves it out of each call's tools until the window first
   * shows a fold, a spill, a notice or a receipt (at once for a session restored with folds),
   * and offers it from that call on. Needs the middleware (`wrapModel`).
   * @default 'always'
   */
  readonly toolOffer?: ToolOffer;
}

/** The options only an AI SDK host passes (beside the runtime's own). */
const FOLDING_OPTION_KEYS = ['contextWindow', 'onPrompt', 'onWarning', 'onCommitTelemetry', 'toolOffer'] as const;

/** The runtime's share of the options (the AI SDK ones would be refused there as unknown). */
function runtimeOptionsOf(options: FoldingOptions): FoldRuntimeOptions {
  const runtimeOptions: Record<string, unknown> = {};
  for (const key of RUNTIME_OPTION_KEYS) if (options[key] !== undefined) runtimeOptions[key] = options[key];
  return runtimeOptions as unknown as FoldRuntimeOptions;
}

/** The step input our prepareStep reads; any ai@6 or ai@7 prepareStep input satisfies it. */
export type StepMessages = StepInput;

/** What `createFolding` returns: three pieces to hand to the AI SDK, and the runtime behind them. */
export interface Folding {
  /**
   * Projects the step's full history; pass as `prepareStep` (or compose with `composePrepareStep`).
   * Under ai@7, whose returned messages persist, the history is rebuilt from `initialMessages`
   * and `responseMessages`, so each step still folds the real conversation.
   */
  readonly prepareStep: (options: StepMessages) => Promise<{ messages: ModelMessage[] }>;
  /** Records usage and sees the final prompt; wrap the model with it (or use `wrapModel`). */
  readonly middleware: LanguageModelMiddleware;
  /** `{ fold_context }` (keyed by `settings.toolName`): the agent's fold tool (nine actions and search). */
  readonly tools: Record<string, Tool<FoldContextInput, string>>;
  readonly runtime: FoldRuntime;
  /** The last projection's result (ledger row, warnings), for hosts that show it. */
  readonly lastProjection: () => ProjectionResult | undefined;
  /** `wrapLanguageModel({ model, middleware })`. */
  wrapModel(model: LanguageModelV3): LanguageModelV3;
  /**
   * Compose a prepareStep of your own with ours. Yours runs first, with `messages` set to the
   * step's full, unprojected history (under ai@6 and ai@7 alike); its settings are kept, and if
   * it returns `messages` those are the history we fold for this step (keep them
   * append-stable). Ours then replaces `messages` with the projection.
   * (`Record<string, Tool>`, not `ToolSet`: ai's `PrepareStepFunction` demands the former, and
   * `ToolSet` does not satisfy it under `exactOptionalPropertyTypes`.)
   */
  composePrepareStep<TOOLS extends Record<string, Tool>>(own: PrepareStepFunction<TOOLS>): PrepareStepFunction<TOOLS>;
  /** The transcript entries (with their stable ids) of a history, e.g. to pin an entry. */
  entries(messages: readonly ModelMessage[]): readonly TranscriptEntry[];
  dispose(): Promise<void>;
}

/**
 * Build folding for one AI SDK conversation. State lives in the chosen store under
 * `sessionId`, so a later call (or process) given the stored messages continues with the
 * same folds.
 */
export async function createFolding(options: FoldingOptions): Promise<Folding> {
  if (typeof options !== 'object' || options === null)
    throw new FoldError('SETTINGS.INVALID', 'createFolding needs an options object with a sessionId');
  assertKnownOptions(options, [...RUNTIME_OPTION_KEYS, ...FOLDING_OPTION_KEYS], 'createFolding');
  assertSessionIdOption(options.sessionId, 'createFolding');
  assertBudgetSource(options);
  // A store the host passes may serve many loops (a server building one per request): it stays open.
  const composed = await composeFoldRuntime(runtimeOptionsOf(options), 'keep');
  const { runtime } = composed;
  // A resumed session answers status with its budget before the first step.
  if (options.contextWindow !== undefined) runtime.expectRequests({ contextWindow: options.contextWindow });
  const mapper = new MessageEntryMapper();
  const converter = new ProjectedMessageConverter(mapper);
  const source = new MessageHistorySource(runtime.view.sessionId, mapper);
  const onWarning = options.onWarning ?? ((warning: string) => console.warn(warning));
  let overheadChars = 0;
  let last: ProjectionResult | undefined;

  if (options.onCommitTelemetry !== undefined) runtime.subscribe({ acceptCommitTelemetry: options.onCommitTelemetry });

  const project = async (history: readonly ModelMessage[], model: unknown): Promise<ModelMessage[]> => {
    source.update(history);
    last = await runtime.project(source, {
      ...(options.contextWindow === undefined ? {} : { contextWindow: options.contextWindow }),
      ...stepModel(model),
      overheadChars,
      requestTime: Date.now(),
    });
    for (const warning of last.warnings) onWarning(warning);
    return converter.toModelMessages(last.messages);
  };

  // Once offered, the tool stays: the tool list changes at most once per conversation.
  let toolOffered = options.toolOffer !== 'when-needed';
  const foldToolOffered = (): boolean => (toolOffered ||= foldToolNeeded(runtime.view.lattice.size, last?.messages));
  const middleware = createUsageMiddleware({
    runtime,
    ...(toolOffered ? {} : { foldTool: { name: runtime.view.settings.toolName, offered: foldToolOffered } }),
    ...(options.onPrompt === undefined ? {} : { onPrompt: options.onPrompt }),
    onOverhead: (chars) => {
      overheadChars = chars;
    },
  });

  return {
    prepareStep: async (step) => ({ messages: await project(stepHistory(step), step.model) }),
    middleware,
    tools: { [runtime.view.settings.toolName]: createFoldContextTool(runtime) },
    runtime,
    lastProjection: () => last,
    wrapModel: (model) => wrapLanguageModel({ model, middleware }),
    composePrepareStep<TOOLS extends Record<string, Tool>>(
      own: PrepareStepFunction<TOOLS>,
    ): PrepareStepFunction<TOOLS> {
      return async (stepOptions): Promise<PrepareStepResult<TOOLS>> => {
        const history = stepHistory(stepOptions);
        const theirs = await own({ ...stepOptions, messages: history });
        // A model yours picks for this step is the one the request goes to, so it sets the budget.
        return { ...theirs, messages: await project(theirs?.messages ?? history, theirs?.model ?? stepOptions.model) };
      };
    },
    entries: (messages) => mapper.toEntries(messages),
    dispose: () => composed.dispose(),
  };
}

/**
 * The step's model as the engine keys budgets: a model instance names itself (`modelId`,
 * `provider`, e.g. `openai.responses`); a gateway id string is the id.
 */
function stepModel(model: unknown): Pick<RequestContext, 'model'> {
  if (typeof model === 'string') return { model: { id: model } };
  if (typeof model !== 'object' || model === null) return {};
  const { modelId, provider } = model as { modelId?: unknown; provider?: unknown };
  if (typeof modelId !== 'string') return {};
  return { model: { id: modelId, ...(typeof provider === 'string' ? { provider } : {}) } };
}

// Checked before anything is built, so a refused call opens no store.
function assertBudgetSource(options: FoldingOptions): void {
  const { contextWindow } = options;
  if (contextWindow !== undefined && (!Number.isInteger(contextWindow) || contextWindow < 1000)) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `vercel-ai: contextWindow must be an integer of at least 1000 tokens, got ${describeValue(contextWindow)}`,
      { details: { option: 'contextWindow' } },
    );
  }
  if (options.toolOffer !== undefined && !(TOOL_OFFERS as readonly unknown[]).includes(options.toolOffer)) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `vercel-ai: toolOffer must be one of ${TOOL_OFFERS.map((name) => `"${name}"`).join(', ')}, got ${describeValue(options.toolOffer)}`,
      { details: { option: 'toolOffer' } },
    );
  }
  if (options.settings?.providerInputBudget === undefined && contextWindow === undefined) {
    throw new FoldError(
      'SETTINGS.INVALID',
      'vercel-ai: set settings.providerInputBudget or contextWindow; the AI SDK does not report a context window',
      { details: { option: 'contextWindow' } },
    );
  }
}
