import type { ModelMessage } from 'ai';
import * as aiSdk from 'ai';

/**
 * Where ai@6 and ai@7 differ for folding, decided in this one file so the engine sees a single
 * code path:
 *
 * - **prepareStep.** ai@6 hands each step the full, unprojected history in `messages`, and a
 *   returned `messages` applies to that step only. ai@7 carries a returned `messages` forward
 *   (the next step's `messages` starts from our projection), and hands in `initialMessages`
 *   and `responseMessages` so the real history can be rebuilt. `stepHistory` returns the
 *   unprojected history either way, chosen from what the SDK hands the step.
 * - **Middleware.** ai@6 wraps spec-V3 models with V3 middleware; ai@7 wraps V2, V3 and V4
 *   models and runs V4 middleware. Usage, prompts and stream parts that pi-fold reads are the
 *   same shape in V3 and V4; only the declared `specificationVersion` differs.
 */

/** The major version of the `ai` package this process loaded. */
export type AiSdkMajor = 6 | 7;

/** ai@7 renamed `stepCountIs` to `isStepCount` (the old name stays as an alias); ai@6 has only the old one. */
export const AI_SDK_MAJOR: AiSdkMajor = 'isStepCount' in aiSdk ? 7 : 6;

/** The middleware specification the loaded SDK runs. */
export const MIDDLEWARE_SPECIFICATION: 'v3' | 'v4' = AI_SDK_MAJOR === 7 ? 'v4' : 'v3';

/** Model specifications `wrapLanguageModel` accepts in the loaded SDK. */
export const WRAPPABLE_MODEL_SPECIFICATIONS: readonly string[] = AI_SDK_MAJOR === 7 ? ['v2', 'v3', 'v4'] : ['v3'];

/** A user message added by ai@7's experimental steering. */
/** Messages a host steers a step with (ai@7's `experimental_steeringMessages`). */
export type SteeringMessages = readonly ModelMessage[] | undefined;

/** What a prepareStep is handed, as far as folding reads it (ai@6 and ai@7 inputs both satisfy it). */
export interface StepInput {
  readonly messages: ModelMessage[];
  /** The step's model (an instance, or an id the SDK resolves); picks the budget when it is keyed by model. */
  readonly model?: unknown;
  /** ai@7: the messages the call started with. */
  readonly initialMessages?: readonly ModelMessage[];
  /** ai@7: every response message so far (continued responses first, then each step's). */
  readonly responseMessages?: readonly ModelMessage[];
  /** ai@7: steering messages added before this step. */
  readonly experimental_steeringMessages?: SteeringMessages;
  /** The finished steps; in ai@7 each carries its own steering messages and response messages. */
  readonly steps?: readonly {
    readonly response?: { readonly messages?: readonly ModelMessage[] };
    readonly experimental_steeringMessages?: SteeringMessages;
  }[];
}

/**
 * The step's full, unprojected history. ai@6: `messages` as handed in. ai@7: the initial
 * messages, then every response message, with the steering messages each step received put
 * back before that step's response (as the SDK itself ordered them), then this step's steering.
 */
export function stepHistory(input: StepInput): ModelMessage[] {
  const { initialMessages, responseMessages } = input;
  if (initialMessages === undefined || responseMessages === undefined) return input.messages;
  const steps = input.steps ?? [];
  const steered =
    input.experimental_steeringMessages !== undefined ||
    steps.some((step) => step.experimental_steeringMessages !== undefined);
  if (!steered) return [...initialMessages, ...responseMessages];
  const fromSteps = steps.reduce((count, step) => count + (step.response?.messages?.length ?? 0), 0);
  const history: ModelMessage[] = [
    ...initialMessages,
    ...responseMessages.slice(0, responseMessages.length - fromSteps),
  ];
  for (const step of steps)
    history.push(...(step.experimental_steeringMessages ?? []), ...(step.response?.messages ?? []));
  history.push(...(input.experimental_steeringMessages ?? []));
  return history;
}
