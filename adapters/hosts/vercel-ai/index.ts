/**
 * `pi-fold/vercel-ai`: folding for AI SDK loops (`createFolding`, `foldingAgentSettings`) and the
 * fold tool for a runtime of your own. Mappers and version probes are in `pi-fold/vercel-ai/internal`.
 */

// `FoldingOptions.toolOffer`'s type, so an AI SDK host names it from this entry too.
export type { ToolOffer } from '../../../core/settings/tool-offer.ts';
export {
  type AgentSettings,
  type FoldingAgentSettings,
  foldingAgentSettings,
  type ToolsOf,
  type WithFoldTool,
} from './agent-settings.ts';
export type { SteeringMessages } from './ai-sdk-version.ts';
export {
  createFolding,
  type Folding,
  type FoldingOptions,
  type LanguageModelV3,
  type StepMessages,
} from './create-folding.ts';
export { createFoldContextTool, type FoldContextInput, foldContextInputSchema } from './fold-context-tool.ts';
export type { ModelPrompt, ModelUsage, PromptRecord } from './usage-middleware.ts';
