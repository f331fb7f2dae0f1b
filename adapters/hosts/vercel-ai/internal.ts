/**
 * `pi-fold/vercel-ai/internal`: the AI SDK adapter's mappers, middleware and version probes, for
 * tools built beside pi-fold (benches, replays). Not part of the public API: they may change in
 * any release. An AI SDK host uses `pi-fold/vercel-ai` (`createFolding`).
 */

export {
  AI_SDK_MAJOR,
  type AiSdkMajor,
  MIDDLEWARE_SPECIFICATION,
  type StepInput,
  stepHistory,
} from './ai-sdk-version.ts';
export { canonicalBytes } from './canonical-message.ts';
export { type EntrySource, MessageEntryMapper } from './message-entries.ts';
export { ProjectedMessageConverter } from './projected-messages.ts';
export { createUsageMiddleware, requestUsage, type UsageMiddlewareOptions } from './usage-middleware.ts';
