/**
 * `pi-fold/vercel-ai/internal`: the AI SDK adapter's mappers, middleware and version probes, for
 * tools built beside pi-fold (benches, replays). Not part of the public API: they may change in
 * any release. An AI SDK host uses `pi-fold/vercel-ai` (`createFolding`).
 */
export { createUsageMiddleware, requestUsage, type UsageMiddlewareOptions } from './usage-middleware.ts';
export { MessageEntryMapper, type EntrySource } from './message-entries.ts';
export { ProjectedMessageConverter } from './projected-messages.ts';
export { canonicalBytes } from './canonical-message.ts';
export { AI_SDK_MAJOR, MIDDLEWARE_SPECIFICATION, stepHistory, type AiSdkMajor, type StepInput } from './ai-sdk-version.ts';
