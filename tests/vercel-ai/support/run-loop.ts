import { generateText, stepCountIs, streamText, ToolLoopAgent, type ModelMessage } from 'ai';
import { createFolding, foldingAgentSettings, type Folding, type FoldingOptions } from '../../../adapters/vercel-ai/index.ts';
import type { PromptRecord } from '../../../adapters/vercel-ai/usage-middleware.ts';
import { readFileTool, ScriptedModel, type Script } from './scripted-model.ts';

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
export async function runLoop(options: { kind: LoopKind; script: Script; maxSteps: number; folding: Omit<FoldingOptions, 'onPrompt'>; history?: ModelMessage[] }): Promise<LoopRun> {
  const prompts: PromptRecord[] = [];
  const histories: ModelMessage[][] = [];
  const errors: unknown[] = [];
  const folding = await createFolding({ store: 'memory', ...options.folding, onPrompt: (record) => prompts.push(record) });
  const model = new ScriptedModel(options.script);
  const recordHistory = ({ messages }: { messages: ModelMessage[] }) => {
    histories.push(messages);
    return undefined;
  };
  const input = options.history === undefined ? { prompt: 'Audit the repository.' } : { messages: options.history };
  const stopWhen = stepCountIs(options.maxSteps);
  let messages: ModelMessage[];
  if (options.kind === 'generateText') {
    const result = await generateText({ model: folding.wrapModel(model.model), system: SYSTEM, tools: { read_file: readFileTool, ...folding.tools }, prepareStep: folding.composePrepareStep(recordHistory), stopWhen, ...input });
    messages = result.response.messages;
  } else if (options.kind === 'streamText') {
    const result = streamText({
      model: folding.wrapModel(model.model),
      system: SYSTEM,
      tools: { read_file: readFileTool, ...folding.tools },
      prepareStep: folding.composePrepareStep(recordHistory),
      stopWhen,
      onError: ({ error }) => {
        errors.push(error);
      },
      ...input,
    });
    await result.consumeStream();
    messages = (await result.response).messages;
  } else {
    const agent = new ToolLoopAgent(foldingAgentSettings(folding, { model: model.model, instructions: SYSTEM, tools: { read_file: readFileTool }, prepareStep: recordHistory, stopWhen }));
    const result = await agent.stream(input);
    await result.consumeStream({ onError: (error) => errors.push(error) });
    messages = (await result.response).messages;
  }
  return { folding, model, prompts, histories, messages, errors };
}
