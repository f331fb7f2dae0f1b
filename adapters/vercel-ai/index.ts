export { createFolding, type Folding, type FoldingOptions, type LanguageModelV3, type StepMessages } from './create-folding.ts';
export { foldingAgentSettings, type AgentSettings, type FoldingAgentSettings, type WithFoldTool } from './agent-settings.ts';
export { createFoldContextTool, foldContextInputSchema, type FoldContextInput } from './fold-context-tool.ts';
export { createUsageMiddleware, requestUsage, type ModelPrompt, type ModelUsage, type PromptRecord } from './usage-middleware.ts';
export { MessageEntryMapper, type EntrySource } from './message-entries.ts';
export { ProjectedMessageConverter } from './projected-messages.ts';
export { canonicalBytes } from './canonical-message.ts';
export { AI_SDK_MAJOR, MIDDLEWARE_SPECIFICATION, stepHistory, type AiSdkMajor, type StepInput } from './ai-sdk-version.ts';
