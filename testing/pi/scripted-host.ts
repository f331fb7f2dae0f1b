import { join } from 'node:path';
import type { Context, Message } from '@mariozechner/pi-ai';
import type { AuthStorage, ModelRegistry } from '@mariozechner/pi-coding-agent';
import * as piCodingAgent from '@mariozechner/pi-coding-agent';

/**
 * The parts of a scripted Pi session that differ between Pi 0.x and 1.x: where a provider is
 * registered, how a prompt carries the system text and tools, and a UI that records notices.
 */

/** A provider's registration, as `ModelRegistry.registerProvider` takes it. */
export type ProviderConfig = Parameters<ModelRegistry['registerProvider']>[1];

/** Where the scripted provider is registered, and what createAgentSession needs to find it. */
export interface ScriptedModelHost {
  registerProvider(name: string, config: ProviderConfig): void;
  find(provider: string, id: string): ReturnType<ModelRegistry['find']>;
  readonly sessionOptions: Record<string, unknown>;
}

/** Pi 1.x's model runtime, as far as these tests use it (not in the 0.x types the root compiles against). */
interface ModelRuntimeClass {
  create(options: { authPath: string; modelsPath: null; refreshOnCreate: boolean }): Promise<{
    registerProvider(name: string, config: unknown): void;
    getModel(provider: string, id: string): unknown;
  }>;
}

/**
 * Pi 0.x registers providers on an in-memory ModelRegistry over AuthStorage; Pi 1.x replaced
 * both with ModelRuntime (auth and models in one, handed to createAgentSession as `modelRuntime`).
 */
export async function scriptedModelHost(workDirectory: string): Promise<ScriptedModelHost> {
  const ModelRuntime = (piCodingAgent as unknown as { ModelRuntime?: ModelRuntimeClass }).ModelRuntime;
  if (ModelRuntime !== undefined) {
    const modelRuntime = await ModelRuntime.create({
      authPath: join(workDirectory, 'auth.json'),
      modelsPath: null,
      refreshOnCreate: false,
    });
    return {
      registerProvider: (name, config) => modelRuntime.registerProvider(name, config),
      find: (provider, id) => modelRuntime.getModel(provider, id) as ReturnType<ModelRegistry['find']>,
      sessionOptions: { modelRuntime },
    };
  }
  // Read from the namespace, not imported by name: Pi >= 0.74 has no AuthStorage export, and a
  // named import of it would fail to link under plain Node (the lab on another Pi version).
  const { AuthStorage: authStorages, ModelRegistry: modelRegistries } = piCodingAgent as unknown as {
    AuthStorage: typeof AuthStorage;
    ModelRegistry: typeof ModelRegistry;
  };
  const authStorage = authStorages.inMemory();
  const modelRegistry = modelRegistries.inMemory(authStorage);
  return {
    registerProvider: (name, config) => modelRegistry.registerProvider(name, config),
    find: (provider, id) => modelRegistry.find(provider, id),
    sessionOptions: { authStorage, modelRegistry },
  };
}

/**
 * The conversation messages of a request and the chars sent around them. Pi 0.x hands a
 * provider `systemPrompt` and `tools` beside the messages; Pi 1.x carries both as `system`
 * messages inside them. Either way the recorded messages are the conversation only.
 */
export function splitPrompt(context: Context): { messages: Message[]; overhead: number } {
  const all = context.messages as (Message | { role: 'system' })[];
  const messages = all.filter((message): message is Message => message.role !== 'system');
  const system = all.filter((message) => message.role === 'system');
  const overhead =
    (context.systemPrompt?.length ?? 0) +
    JSON.stringify(context.tools ?? []).length +
    (system.length === 0 ? 0 : JSON.stringify(system).length);
  return { messages, overhead };
}

/** A UI context that records notifications and refuses everything interactive. */
export function notifyingUi(notices: string[]): Record<string, unknown> {
  return new Proxy(
    {
      notify: (message: string) => notices.push(message),
      setStatus: () => undefined,
      setWidget: () => undefined,
      setWorkingMessage: () => undefined,
    },
    {
      get(target, property) {
        if (property in target) return (target as Record<string | symbol, unknown>)[property];
        return () => undefined;
      },
    },
  );
}
