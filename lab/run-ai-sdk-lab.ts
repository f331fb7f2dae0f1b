/**
 * The lab's staged assignment as an AI SDK agent: the real `generateText` tool loop against
 * what the SDK and the providers offer instead of pi-fold, every arm in one run.
 *
 *   npm run bench:ai-sdk                         # --preset shaped (real sessions' tool mix)
 *   npm run bench:ai-sdk:staged                  # --preset full (the staged assignment)
 *   npx tsx lab/run-ai-sdk-lab.ts --preset smoke --arms prune,server-clear,fold --out /tmp/ai-sdk-lab
 *   npm run bench:ai-sdk:ai7                     # the shaped preset on ai@7 under Node 22
 *
 * The rules each arm follows, with their sources: docs/vercel-ai-lab.md. Progress goes to
 * stderr; the table to stdout; CSV, stable JSON summary and the HTML report to `--out`
 * (default `lab/out/ai-sdk-<preset>`). Ratios are against `prune`, the SDK's own pattern.
 */
import { parseArgs } from 'node:util';
import { FoldError } from '../core/fold-error.ts';
import { loadedAiVersion } from './ai-sdk/ai-sdk-loaded.ts';
import { runSdkArm } from './ai-sdk/run-sdk-arm.ts';
import { isSdkArm, SDK_ARM_NAMES, type SdkArmName } from './ai-sdk/sdk-arms.ts';
import { createProgressBar, formatArmTable, type ProgressBar, writeLabReports } from './report/index.ts';
import { labWorkload, runLabWorkload } from './workload/lab-workload.ts';
import { SHAPED_LAB_NOTES } from './workload/shaped/shaped-notes.ts';

/** The arm the AI SDK lab's ratios are taken against. */
const REFERENCE_ARM: SdkArmName = 'prune';

/** Notes of the AI SDK lab on top of the Pi lab's: what differs in the host. */
export const AI_SDK_LAB_NOTES: readonly string[] = [
  "Host: ai's generateText tool loop, the SDK's MockLanguageModelV3 answering through the simulated provider; a one-line system prompt; the workload's tools (Pi's read, repo_stage, submit_answers) bridged unchanged. Arms and their rules: docs/vercel-ai-lab.md.",
  "Workload: the Pi lab's staged assignment, same stages, hidden markers, working-set checks, probes and scripted agent.",
  'Lossy arms: what prune and prune-held cut, or server-clear clears, is gone; the agent reads it again (a stage re-delivered, a file re-read), and those requests are billed as recovery.',
  "Rows marked compaction are the lossy arms' own edits (a prune that changed the prompt, a clearing); fold arms' rewrites are commits.",
  'Provider: o200k_base tokens of the wire prompt (system, tools, messages); positional prefix cache (1,024-token minimum, 128-token steps, 300 s TTL at 15 simulated s per request, 16 entries); refusal above the cap ends the arm.',
];

function parseSdkArms(list: string): SdkArmName[] {
  return list.split(',').map((name) => {
    const arm = name.trim();
    if (!isSdkArm(arm))
      throw new FoldError('SETTINGS.INVALID', `unknown AI SDK arm "${arm}" (known: ${SDK_ARM_NAMES.join(', ')})`);
    return arm;
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      preset: { type: 'string', default: 'shaped' },
      arms: { type: 'string', default: SDK_ARM_NAMES.join(',') },
      seed: { type: 'string', default: '1' },
      out: { type: 'string' },
      'price-list': { type: 'string', default: 'gpt-5.6-ledger' },
    },
  });
  const workload = labWorkload(values.preset!);
  const { preset } = workload;
  const arms = parseSdkArms(values.arms!);
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new FoldError('SETTINGS.INVALID', `--seed must be an integer, got ${values.seed}`);
  const ai = loadedAiVersion();
  // A run on another major keeps its own default folder, so ai@6 and ai@7 reports sit side by side.
  const major = ai.split('.')[0];
  const out = values.out ?? `lab/out/ai-sdk-${preset.name}${major === '6' ? '' : `-ai${major}`}`;
  const wallByArm: Record<string, string> = {};
  let bar: ProgressBar | undefined;
  const started = performance.now();
  const run = await runLabWorkload(workload, {
    seed,
    arms,
    priceList: values['price-list']!,
    runArm: (input) => runSdkArm({ ...input, arm: input.arm as SdkArmName }),
    onArmStart: (arm, expected) => {
      bar = createProgressBar(arm.padEnd(14), expected);
    },
    onRow: (row) => bar?.tick(1, `${row.promptTokens} tokens${row.rejected ? ' refused' : ''}`),
    onArmEnd: (result, wallMs) => {
      bar?.done();
      wallByArm[`wall ${result.arm}`] = `${(wallMs / 1000).toFixed(1)} s`;
      if (result.failure !== undefined) process.stderr.write(`${result.arm}: ${result.failure}\n`);
    },
  });
  const referenced = { ...run, reference: REFERENCE_ARM };
  const wall = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  console.log(
    `pi-fold AI SDK lab · ai ${ai} · preset ${preset.name} · seed ${seed} · ${preset.stages} stages · wall ${wall}`,
  );
  console.log(formatArmTable(referenced));
  const paths = await writeLabReports(referenced, out, {
    title: `pi-fold AI SDK lab · ${preset.name} preset · ai ${ai}`,
    notes:
      workload.kind === 'shaped'
        ? [...AI_SDK_LAB_NOTES.filter((note) => !note.startsWith('Workload:')), ...SHAPED_LAB_NOTES]
        : AI_SDK_LAB_NOTES,
    measurements: { wall, node: process.version, ai, ...wallByArm },
  });
  console.log(`reports: ${paths.html} · ${paths.summary} · ${paths.csv}`);
}

try {
  await main();
} catch (error) {
  process.stderr.write(`run-ai-sdk-lab: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
