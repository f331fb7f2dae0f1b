import { generateText, type ModelMessage, stepCountIs, streamText, ToolLoopAgent, type ToolSet } from 'ai';
import {
  createFolding,
  type Folding,
  type FoldingOptions,
  foldingAgentSettings,
} from '../../../adapters/hosts/vercel-ai/index.ts';
import type { PromptRecord } from '../../../adapters/hosts/vercel-ai/usage-middleware.ts';
import { readFileTool, type Script, ScriptedModel } from '../../../testing/vercel-ai/scripted-model.ts';

export type LoopKind = 'generateText' | 'streamText' | 'ToolLoopAgent.stream';

export interface LoopRun {
  readonly folding: Folding;
  readonly model: ScriptedModel;
  /** Every final prompt, as the middleware saw it. */
  readonly prompts: PromptRecord[];
  /** The full, unprojected history the SDK handed prepareStep at each step. */
  readonly histories: ModelMessage[][];
  readonly messages: ModelMessage[];
  readonly errors: unknown[];
}

export const SYSTEM = 'You audit a repository one file at a time.';

/**
 * Run one AI SDK tool loop with folding, through the given entry point, recording what the
 * model received. A user prepareStep is composed in to record the unprojected history.
 */
export async function runLoop(options: {
  kind: LoopKind;
  script: Script;
  maxSteps: number;
  folding: Omit<FoldingOptions, 'onPrompt'>;
  history?: ModelMessage[];
  tools?: ToolSet;
}): Promise<LoopRun> {
  const prompts: PromptRecord[] = [];
  const histories: ModelMessage[][] = [];
  const errors: unknown[] = [];
  const folding = await createFolding({
    store: 'memory',
    ...options.folding,
    onPrompt: (record) => prompts.push(record),
  });
  const model = new ScriptedModel(options.script);
  // Composed in before ours, so it sees the step's unprojected history: ai@6 hands it in as
  // `messages`; under ai@7 composePrepareStep rebuilds it (the SDK's own `messages` carry our
  // previous projection forward), and the rebuilt history must equal initial + response messages.
  const recordHistory = (step: {
    messages: ModelMessage[];
    initialMessages?: ModelMessage[];
    responseMessages?: ModelMessage[];
  }) => {
    if (step.initialMessages !== undefined && step.responseMessages !== undefined) {
      const rebuilt = [...step.initialMessages, ...step.responseMessages];
      if (
        rebuilt.length !== step.messages.length ||
        rebuilt.some((message, position) => message !== step.messages[position])
      ) {
        throw new Error(
          'prepareStep: the history handed to a composed prepareStep is not initialMessages + responseMessages',
        );
      }
    }
    histories.push(step.messages);
    return undefined;
  };
  const input = options.history === undefined ? { prompt: 'Audit the repository.' } : { messages: options.history };
  const stopWhen = stepCountIs(options.maxSteps);
  const hostTools = options.tools ?? { read_file: readFileTool };
  let messages: ModelMessage[];
  if (options.kind === 'generateText') {
    const result = await generateText({
      model: folding.wrapModel(model.model),
      system: SYSTEM,
      tools: { ...hostTools, ...folding.tools },
      prepareStep: folding.composePrepareStep(recordHistory),
      stopWhen,
      ...input,
    });
    messages = await responseMessagesOf(result);
  } else if (options.kind === 'streamText') {
    const result = streamText({
      model: folding.wrapModel(model.model),
      system: SYSTEM,
      tools: { ...hostTools, ...folding.tools },
      prepareStep: folding.composePrepareStep(recordHistory),
      stopWhen,
      onError: ({ error }) => {
        errors.push(error);
      },
      ...input,
    });
    await result.consumeStream();
    messages = await responseMessagesOf(result);
  } else {
    const agent = new ToolLoopAgent(
      foldingAgentSettings(folding, {
        model: model.model,
        instructions: SYSTEM,
        tools: hostTools,
        prepareStep: recordHistory,
        stopWhen,
      }),
    );
    const result = await agent.stream(input);
    await result.consumeStream({ onError: (error) => errors.push(error) });
    messages = await responseMessagesOf(result);
  }
  return { folding, model, prompts, histories, messages, errors };
}

/**
 * Every message the call produced. ai@6 puts them on `response.messages`; ai@7 on
 * `responseMessages` (its `response` is the last step's metadata only).
 */
async function responseMessagesOf(result: { response: unknown }): Promise<ModelMessage[]> {
  const accumulated = (result as { responseMessages?: PromiseLike<ModelMessage[]> | ModelMessage[] }).responseMessages;
  if (accumulated !== undefined) return await accumulated;
  return ((await result.response) as { messages: ModelMessage[] }).messages;
}
