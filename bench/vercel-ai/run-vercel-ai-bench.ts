/**
 * The AI SDK adapter's own time per step (prepareStep + middleware) on a 70-step tool loop
 * near a 100k-token budget, run through the real generateText with a MockLanguageModelV3.
 * Prints the mean per step, its split (adapter mapping vs the engine's project), and the
 * mean of the first and last ten steps, to show the cost does not grow with the step count.
 *
 * Run: npm run bench:vercel-ai
 */

import { performance } from 'node:perf_hooks';
import { generateText, type LanguageModelMiddleware, stepCountIs, wrapLanguageModel } from 'ai';
import { createFolding } from '../../adapters/hosts/vercel-ai/index.ts';
import { readFileTool, readLoop, ScriptedModel } from '../../testing/vercel-ai/scripted-model.ts';

const STEPS = 70;
const BUDGET = 100_000;
const RUNS = 8;

interface StepTimes {
  prepareStep: number[];
  /** CPU time of this process in prepareStep, ms: less disturbed than wall time on a busy machine. */
  prepareStepCpu: number[];
  engineProject: number[];
  middleware: number[];
}

async function runOnce(
  run: number,
): Promise<{ times: StepTimes; maxTokens: number; commits: number; rawTokens: number; commitSteps: boolean[] }> {
  const folding = await createFolding({
    store: 'memory',
    sessionId: `bench-${run}`,
    settings: { providerInputBudget: BUDGET },
  });
  const times: StepTimes = { prepareStep: [], prepareStepCpu: [], engineProject: [], middleware: [] };
  const { runtime } = folding;
  const project = runtime.project.bind(runtime);
  runtime.project = async (...args) => {
    const started = performance.now();
    try {
      return await project(...args);
    } finally {
      times.engineProject.push(performance.now() - started);
    }
  };
  const inner = folding.middleware;
  let middlewareTime = 0;
  const timedMiddleware: LanguageModelMiddleware = {
    specificationVersion: 'v3',
    transformParams: async (options) => {
      const started = performance.now();
      const params = await inner.transformParams!(options);
      middlewareTime = performance.now() - started;
      return params;
    },
    wrapGenerate: async (options) => {
      let modelTime = 0;
      const started = performance.now();
      const result = await inner.wrapGenerate!({
        ...options,
        doGenerate: async () => {
          const modelStarted = performance.now();
          const generated = await options.doGenerate();
          modelTime = performance.now() - modelStarted;
          return generated;
        },
      });
      times.middleware.push(middlewareTime + performance.now() - started - modelTime);
      return result;
    },
  };
  const model = new ScriptedModel(readLoop(STEPS - 1), { cheapUsage: true });
  let history: readonly unknown[] = [];
  await generateText({
    model: wrapLanguageModel({ model: model.model, middleware: timedMiddleware }),
    tools: { read_file: readFileTool, ...folding.tools },
    prompt: 'Audit the repository.',
    stopWhen: stepCountIs(STEPS + 2),
    prepareStep: async (options) => {
      history = options.messages;
      const started = performance.now();
      const cpuStarted = process.cpuUsage();
      const result = await folding.prepareStep(options);
      const cpu = process.cpuUsage(cpuStarted);
      times.prepareStep.push(performance.now() - started);
      times.prepareStepCpu.push((cpu.user + cpu.system) / 1000);
      return result;
    },
  });
  const maxTokens = Math.max(...model.calls.map((call) => call.tokens));
  const commits = runtime.view.memory.counters.commits;
  const rawChars = JSON.stringify(history).length;
  const commitSteps = runtime.view.ledger.map((row) => row.foldsLanded > 0);
  await folding.dispose();
  return { times, maxTokens, commits, rawTokens: Math.round(rawChars / 3.6), commitSteps };
}

const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
const format = (milliseconds: number) => `${milliseconds.toFixed(3)} ms`;
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

await runOnce(-1); // warm-up: JIT and module loading are not the adapter's per-step cost
const perStep: number[][] = Array.from({ length: STEPS }, () => []);
const cpuPerStep: number[][] = Array.from({ length: STEPS }, () => []);
const appendSteps: number[][] = Array.from({ length: STEPS }, () => []);
const commitTimes: number[] = [];
const adapterOnly: number[][] = Array.from({ length: STEPS }, () => []);
const engine: number[] = [];
const middleware: number[] = [];
let summary = { maxTokens: 0, commits: 0, rawTokens: 0 };
for (let run = 0; run < RUNS; run += 1) {
  const { times, commitSteps, ...facts } = await runOnce(run);
  summary = facts;
  for (let step = 0; step < STEPS; step += 1) {
    const total = (times.prepareStep[step] ?? 0) + (times.middleware[step] ?? 0);
    perStep[step]!.push(total);
    cpuPerStep[step]!.push(times.prepareStepCpu[step] ?? 0);
    if (commitSteps[step] === true) commitTimes.push(total);
    else appendSteps[step]!.push(total);
    adapterOnly[step]!.push(
      (times.prepareStep[step] ?? 0) - (times.engineProject[step] ?? 0) + (times.middleware[step] ?? 0),
    );
    engine.push(times.engineProject[step] ?? 0);
    middleware.push(times.middleware[step] ?? 0);
  }
}
const stepMeans = perStep.map(mean);
const adapterMeans = adapterOnly.map(mean);
const appendMeans = appendSteps.filter((values) => values.length > 0).map(mean);
const tenths = (values: readonly number[]) =>
  Array.from({ length: 7 }, (_, decile) => format(mean(values.slice(decile * 10, decile * 10 + 10)))).join(' · ');
// Medians over every run's steps of a block: means carry the garbage collector's pauses, which land anywhere.
const blockMedians = (values: readonly number[][]) =>
  Array.from({ length: 7 }, (_, decile) => format(median(values.slice(decile * 10, decile * 10 + 10).flat()))).join(
    ' · ',
  );
console.log(
  `vercel-ai adapter bench: ${STEPS} steps, budget ${BUDGET} tokens, ${RUNS} runs (after one warm-up), memory store`,
);
console.log(
  `  largest prompt the model saw: ${summary.maxTokens} tokens; raw history at the end: ≈${summary.rawTokens} tokens; commits per run: ${summary.commits}`,
);
console.log(
  `  per step (prepareStep + middleware): mean ${format(mean(stepMeans))} · median ${format(median(stepMeans))}`,
);
console.log(
  `    engine project: mean ${format(mean(engine))} · adapter's own mapping + middleware: mean ${format(mean(adapterMeans))} (middleware ${format(mean(middleware))})`,
);
console.log(
  `    steps without a commit: mean ${format(mean(appendMeans))} · steps with a commit: mean ${format(mean(commitTimes))} (${commitTimes.length / RUNS} per run)`,
);
console.log(`  by ten-step block, all steps:         ${tenths(stepMeans)}`);
console.log(`  by ten-step block, adapter's own part: ${tenths(adapterMeans)}`);
console.log(`  medians by ten-step block, all steps:  ${blockMedians(perStep)}`);
console.log(`  medians by ten-step block, adapter:    ${blockMedians(adapterOnly)}`);
console.log(
  `  prepareStep CPU time (this process only): mean ${format(mean(cpuPerStep.map(mean)))} · by block ${tenths(cpuPerStep.map(mean))}`,
);
console.log(
  `  machine load average: ${(await import('node:os')).loadavg()[0]!.toFixed(2)} on ${(await import('node:os')).cpus().length} cores (wall times inflate under load)`,
);
console.log(`  target: ≤ 5 ms mean, not growing with the step count`);
