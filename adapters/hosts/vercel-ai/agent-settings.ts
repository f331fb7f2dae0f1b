import type { PrepareStepFunction, Tool, ToolLoopAgentSettings, ToolSet } from 'ai';
import { FoldError } from '../../../core/fold-error.ts';
import { AI_SDK_MAJOR, WRAPPABLE_MODEL_SPECIFICATIONS } from './ai-sdk-version.ts';
import type { Folding, LanguageModelV3 } from './create-folding.ts';
import type { FoldContextInput } from './fold-context-tool.ts';

/** The agent's tools with the fold tool added. */
export type WithFoldTool<TOOLS extends ToolSet> = TOOLS & Record<string, Tool<FoldContextInput, string>>;

/**
 * Any `ToolLoopAgent` settings of the installed SDK. Only the first three type parameters are
 * spelled, as `any`: ai@6 has three (call options, tools, output), ai@7 four (a runtime context
 * before the output), so naming more would break these declarations under one of them. `any`
 * keeps the settings' callbacks contextually typed and assignable once the agent infers its
 * real tools; the precise types come from the settings object itself (`SETTINGS`).
 */
// biome-ignore lint/suspicious/noExplicitAny: the SDK's type parameters differ between ai@6 and ai@7 (see above)
export type AgentSettings = ToolLoopAgentSettings<any, any, any>;

/** The tools an agent's settings declare (none: `{}`). */
export type ToolsOf<SETTINGS> = SETTINGS extends { readonly tools?: infer TOOLS }
  ? TOOLS extends ToolSet
    ? TOOLS
    : // biome-ignore lint/complexity/noBannedTypes: the SDK spells an empty tool set as `{}`
      {}
  : // biome-ignore lint/complexity/noBannedTypes: the SDK spells an empty tool set as `{}`
    {};

/** The settings given, with the wrapped model, the fold tool added and the composed prepareStep. */
export type FoldingAgentSettings<SETTINGS extends AgentSettings> = Omit<SETTINGS, 'tools' | 'prepareStep'> & {
  readonly tools: WithFoldTool<ToolsOf<SETTINGS>>;
  readonly prepareStep: PrepareStepFunction<WithFoldTool<ToolsOf<SETTINGS>>>;
};

/**
 * `ToolLoopAgent` keeps its settings private, so folding is added before the agent is built:
 * the model is wrapped with the middleware, the fold tool joins the tools, and the settings'
 * own `prepareStep` (if any) is composed with ours (yours first, see `composePrepareStep`).
 *
 * @example new ToolLoopAgent(foldingAgentSettings(folding, { model, tools, stopWhen: stepCountIs(80) }))
 * @throws FoldError `SETTINGS.INVALID` for a model given by name (wrap needs an instance) or a tool name clash.
 */
export function foldingAgentSettings<SETTINGS extends AgentSettings>(
  folding: Folding,
  settings: SETTINGS,
): FoldingAgentSettings<SETTINGS> {
  const model = settings.model;
  if (typeof model === 'string' || !WRAPPABLE_MODEL_SPECIFICATIONS.includes(model.specificationVersion)) {
    const given =
      typeof model === 'string' ? `the model id ${JSON.stringify(model)}` : `a ${model.specificationVersion} model`;
    throw new FoldError(
      'SETTINGS.INVALID',
      `vercel-ai: folding wraps a model instance of spec ${WRAPPABLE_MODEL_SPECIFICATIONS.join('/')} (ai@${AI_SDK_MAJOR}), got ${given}; pass the provider's model object`,
      { details: { option: 'model' } },
    );
  }
  const toolName = folding.runtime.view.settings.toolName;
  if (settings.tools !== undefined && toolName in settings.tools) {
    throw new FoldError(
      'SETTINGS.INVALID',
      `vercel-ai: the agent already has a tool named ${toolName}; set settings.toolName to another name`,
      { details: { option: 'toolName' } },
    );
  }
  const own = settings.prepareStep as PrepareStepFunction<ToolSet> | undefined;
  const prepareStep = own === undefined ? folding.prepareStep : folding.composePrepareStep(own);
  return {
    ...settings,
    // Checked above against what the loaded SDK wraps (the root's ai@6 types spell only V3).
    model: folding.wrapModel(model as LanguageModelV3),
    tools: { ...settings.tools, ...folding.tools },
    prepareStep,
  } as unknown as FoldingAgentSettings<SETTINGS>;
}
