import type { LanguageModelV3CallOptions, LanguageModelV3GenerateResult } from '@ai-sdk/provider';
import type { Context, Model } from '@mariozechner/pi-ai';
import { MockLanguageModelV3 } from 'ai/test';
import type { SimulatedProvider } from '../provider/simulated-provider.ts';
import { assistantAsSdkContent, sdkPromptAsContext } from './prompt-bridge.ts';

/** The descriptor the simulated provider stamps on its answers (it reads only these three fields). */
const LAB_MODEL = { id: 'lab-model', api: 'lab-simulated', provider: 'lab' } as Model<string>;

/** A change the provider side makes to a prompt before it is billed and answered (server-side clearing). */
export type ProviderEdit = (context: Context) => Context;

/**
 * The AI SDK's own test model (`MockLanguageModelV3`) answering through the lab's simulated
 * provider: each call's prompt is billed by the positional prefix cache and the price list,
 * refused above the cap, and answered by the scripted agent, exactly as a Pi arm's requests
 * are. `generateText` and `ToolLoopAgent` drive it as they would any provider.
 */
export function simulatedSdkModel(provider: SimulatedProvider, edit?: ProviderEdit): MockLanguageModelV3 {
  return new MockLanguageModelV3({
    provider: 'lab',
    modelId: 'lab-model',
    doGenerate: (options) => answer(provider, options, edit),
  });
}

async function answer(
  provider: SimulatedProvider,
  options: LanguageModelV3CallOptions,
  edit: ProviderEdit | undefined,
): Promise<LanguageModelV3GenerateResult> {
  const sent = sdkPromptAsContext(options);
  const context = edit === undefined ? sent : edit(sent);
  const message = await provider.streamSimple(LAB_MODEL, context).result();
  if (message.stopReason === 'error')
    throw new Error(message.errorMessage ?? 'the simulated provider refused the prompt');
  const { usage } = message;
  // Shaped as the SDK's Anthropic provider reports it: cache writes beside, not inside, `noCache`.
  return {
    content: assistantAsSdkContent(message),
    finishReason: { unified: message.stopReason === 'toolUse' ? 'tool-calls' : 'stop', raw: message.stopReason },
    usage: {
      inputTokens: {
        total: usage.input + usage.cacheRead + usage.cacheWrite,
        noCache: usage.input,
        cacheRead: usage.cacheRead,
        cacheWrite: usage.cacheWrite,
      },
      outputTokens: { total: usage.output, text: usage.output, reasoning: 0 },
    },
    warnings: [],
  };
}
