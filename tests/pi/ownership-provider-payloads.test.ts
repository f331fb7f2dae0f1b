import type { AgentMessage } from '@mariozechner/pi-agent-core';
import type { Context, Message, Model } from '@mariozechner/pi-ai';
import * as piAi from '@mariozechner/pi-ai';
import { describe, expect, it } from 'vitest';
import { OwnershipMonitor } from '../../adapters/hosts/pi/ownership-monitor.ts';
import { blobText, PI_VERSION } from '../../testing/pi/scripted-pi.ts';

/**
 * What builds a request body with pi-ai's own provider code, on either generation: pi-ai 0.x
 * lists models and streams through free functions (`getProviders`, `getModels`, `streamSimple`);
 * from 0.8x on the built-in providers come as one `Models` collection (`providers/all`'s
 * `builtinModels`), which takes the same `streamSimple(model, context, options)`.
 */
interface PayloadBuilder {
  readonly models: readonly Model<string>[];
  readonly streamSimple: (
    model: Model<string>,
    context: Context,
    options: { apiKey: string; onPayload: (body: unknown) => unknown },
  ) => AsyncIterable<{ type: string }>;
}

type BuiltinModels = {
  builtinModels: () => {
    getProviders(): readonly { id: string }[];
    getModels(provider: string): readonly Model<string>[];
    streamSimple: PayloadBuilder['streamSimple'];
  };
};

// Typed as a plain string: the root's pi-ai 0.73.1 has no such module (its compiler would refuse the import).
const PROVIDERS_MODULE: string = '@mariozechner/pi-ai/providers/all';

async function payloadBuilder(): Promise<PayloadBuilder> {
  const { getModels, getProviders, streamSimple } = piAi as Partial<typeof piAi>;
  if (typeof getProviders === 'function' && typeof getModels === 'function' && typeof streamSimple === 'function') {
    return {
      models: getProviders().flatMap((provider) => getModels(provider) as Model<string>[]),
      streamSimple: streamSimple as unknown as PayloadBuilder['streamSimple'],
    };
  }
  const collection = ((await import(PROVIDERS_MODULE)) as BuiltinModels).builtinModels();
  return {
    models: collection.getProviders().flatMap((provider) => collection.getModels(provider.id)),
    streamSimple: (model, context, options) => collection.streamSimple(model, context, options),
  };
}

/** Providers whose models build a body from an API key alone; asked first for their formats. */
const DIRECT_PROVIDERS = ['openai', 'anthropic', 'google', 'mistral', 'groq'];

/** One model per wire format pi-ai speaks, keyed by API (a direct provider's when it has one). */
function oneModelPerApi(models: readonly Model<string>[]): Map<string, Model<string>> {
  const byApi = new Map<string, Model<string>>();
  for (const model of [...models].sort((a, b) => rank(a.provider) - rank(b.provider)))
    if (!byApi.has(model.api)) byApi.set(model.api, model);
  return byApi;
}

function rank(provider: string): number {
  const position = DIRECT_PROVIDERS.indexOf(provider);
  return position < 0 ? DIRECT_PROVIDERS.length : position;
}

class PayloadCaptured extends Error {}

/**
 * The request body pi-ai's own provider code builds for `context`, taken at `onPayload` (Pi's
 * before_provider_request), before anything is sent: the hook throws, so nothing leaves the machine.
 */
async function realPayload(builder: PayloadBuilder, model: Model<string>, context: Context): Promise<unknown> {
  let payload: unknown;
  const stream = builder.streamSimple(model, context, {
    apiKey: 'offline-test-key',
    onPayload: (body) => {
      payload = body;
      throw new PayloadCaptured('captured');
    },
  });
  for await (const event of stream) if (event.type === 'done' || event.type === 'error') break;
  return payload;
}

/** A window as pi-fold projects it: a user turn, tool calls with results, a fold placeholder, unicode. */
function projectedWindow(): Message[] {
  const now = 1_700_000_000_000;
  const usage = {
    input: 0,
    output: 0,
    cacheRead: 0,
    cacheWrite: 0,
    totalTokens: 0,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
  const messages: Message[] = [
    {
      role: 'user',
      content: 'Audit the parser module and report every unsafe cast — «ünïcödé» included.',
      timestamp: now,
    },
  ];
  for (let call = 1; call <= 4; call += 1) {
    messages.push({
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading blob ${call} before deciding anything about the casts.` },
        { type: 'toolCall', id: `toolu_${call}`, name: 'fetch_blob', arguments: { seed: call, size: 3000 } },
      ],
      api: 'x',
      provider: 'x',
      model: 'x',
      usage,
      stopReason: 'toolUse',
      timestamp: now + call,
    } as Message);
    messages.push({
      role: 'toolResult',
      toolCallId: `toolu_${call}`,
      toolName: 'fetch_blob',
      content: [{ type: 'text', text: blobText(call, 3000) }],
      isError: false,
      timestamp: now + call,
    });
  }
  messages.push({
    role: 'user',
    content: [
      {
        type: 'text',
        text: '[pi-fold] fold_1e9726dcfb65771f3e24808f (tool, 1 entry): fetch_blob(seed=0, size=23084) — peek it by id with pi_fold_context',
      },
    ],
    timestamp: now + 10,
  });
  return messages;
}

describe(`ownership check on the request bodies pi-ai really builds (Pi ${PI_VERSION})`, () => {
  it('finds every text pi-fold sent in each wire format (no false alarm), and misses a rewritten one', async () => {
    const builder = await payloadBuilder();
    const checked: string[] = [];
    for (const [api, model] of oneModelPerApi(builder.models)) {
      const messages = projectedWindow();
      const context: Context = { systemPrompt: 'You are a careful auditor.', messages, tools: [] };
      const payload = await realPayload(builder, model, context);
      // Some formats need credentials or a region before they build a body; those are skipped.
      if (payload === undefined) continue;
      checked.push(api);
      const monitor = new OwnershipMonitor();
      monitor.projected(messages as AgentMessage[], 1);
      expect(monitor.checkPayload(payload), `${api}: a body built from pi-fold's own window`).toBeUndefined();

      // Another extension blanks the second result after pi-fold projected the window.
      const rewritten = messages.map((message) =>
        message.role === 'toolResult' && message.toolCallId === 'toolu_2'
          ? { ...message, content: [{ type: 'text' as const, text: '[result dropped by another extension]' }] }
          : message,
      );
      monitor.projected(messages as AgentMessage[], 2);
      expect(
        monitor.checkPayload(await realPayload(builder, model, { ...context, messages: rewritten }))?.problem,
        `${api}: a rewritten body`,
      ).toBe('rewritten-after-pi-fold');
    }
    // The main formats build their bodies offline: Anthropic, OpenAI Responses and Chat Completions, Google.
    for (const api of ['anthropic-messages', 'openai-responses', 'openai-completions', 'google-generative-ai'])
      expect(checked).toContain(api);
  }, 60_000);
});
