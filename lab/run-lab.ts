/**
 * The lab's live bench: the staged assignment through every arm in real Pi sessions.
 *
 *   npm run bench                      # --preset shaped (real sessions' tool mix), on Pi 1.6.0
 *   npm run bench:staged               # --preset full (the staged reads of files that never change)
 *   npm run bench:smoke                # --preset smoke (CI-sized staged); shaped-smoke for the shaped one
 *   npx tsx lab/run-lab.ts --preset shaped --arms native,fold --seed 7 --out /tmp/lab
 *   npx tsx lab/run-lab.ts --arms native,fold --thresholds maxTarget=0.7,minTarget=0.05
 *
 * Progress goes to stderr; the table goes to stdout; CSV, stable JSON summary, timings and
 * the HTML report go to `--out` (default `lab/out/<preset>`).
 */
import { parseArgs } from 'node:util';
import { parseArmName } from './arms/arm-profile.ts';
import { KNOWN_ARMS } from './arms/arms.ts';
import { parseThresholdsOption } from './arms/threshold-option.ts';
import { findInstalledPi } from './peers/pi-host-lines.ts';
import { createProgressBar, formatArmTable, type ProgressBar, writeLabReports } from './report/index.ts';
import type { ArmName } from './report/lab-records.ts';
import { labWorkload, runLabWorkload } from './workload/lab-workload.ts';
import { SHAPED_LAB_NOTES } from './workload/shaped/shaped-notes.ts';

/** A lab run runs every arm of the registry unless `--arms` names some. */
const DEFAULT_ARMS = KNOWN_ARMS.join(',');

/** Notes printed into every report: the stated assumptions behind the figures. */
export const LAB_NOTES: readonly string[] = [
  "Workload: one user message; the agent calls repo_stage once per stage inside one agentic turn, reads the named files of zod/src with Pi's read tool, notes one line per file, answers probes with submit_answers.",
  'Hidden mass: one seeded marker per stage, planted only in the stage payload; probes ask about earlier stages; a withheld block follows the last stage. The answer key never enters the window.',
  "Working set: from stage 2 on, each stage's work needs lines from the head of files read in the stages just before it (full: 2 lines from the last 3 stages; smoke: 1 from the last 2), seeded; the agent quotes them only from a file its window shows (raw, or in a peeked fold).",
  'Recovery: for a marker, fold arms peek the fold whose brief names repo_stage(stage=N), others re-deliver the stage; for a file line, fold arms peek the fold that names the read (found by its brief, else by search), any arm else reads the file again. The request carrying recovered text is a recovery request, billed. Answers are scored correct (from the window), recovered (after a recovery read) or lost.',
  'Native summary calls are answered by a deterministic summarizer (first line of each message, every agent note, 8,000 chars at most); they are billed rows with purpose "summary".',
  'Provider: o200k_base tokens of the wire prompt (system, tools, messages); positional prefix cache (1,024-token minimum, 128-token steps, 300 s TTL at 15 simulated s per request, 16 entries); refusal above the cap is an overflow Pi recognises.',
];

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      preset: { type: 'string', default: 'shaped' },
      arms: { type: 'string', default: DEFAULT_ARMS },
      seed: { type: 'string', default: '1' },
      out: { type: 'string' },
      'price-list': { type: 'string', default: 'gpt-5.6-ledger' },
      thresholds: { type: 'string' },
      host: { type: 'string' },
    },
  });
  const piHost = checkedPiHost(values.host);
  const workload = labWorkload(values.preset!);
  const { preset } = workload;
  const arms: ArmName[] = values.arms!.split(',').map((name) => parseArmName(name.trim()));
  const seed = Number(values.seed);
  if (!Number.isInteger(seed)) throw new Error(`--seed must be an integer, got ${values.seed}`);
  const out = values.out ?? `lab/out/${preset.name}`;
  const wallByArm: Record<string, string> = {};
  let bar: ProgressBar | undefined;
  const started = performance.now();
  const ran = await runLabWorkload(workload, {
    seed,
    arms,
    priceList: values['price-list']!,
    ...(values.thresholds === undefined ? {} : { foldThresholds: parseThresholdsOption(values.thresholds) }),
    onArmStart: (arm, expected) => {
      bar = createProgressBar(arm.padEnd(14), expected);
    },
    onRow: (row) => bar?.tick(1, `${row.promptTokens} tokens${row.rejected ? ' refused' : ''}`),
    onArmEnd: (result, wallMs) => {
      bar?.done();
      wallByArm[`wall ${result.arm}`] = `${(wallMs / 1000).toFixed(1)} s`;
      if (result.failure !== undefined) process.stderr.write(`${result.arm}: ${result.failure}\n`);
      for (const note of result.hostNotes ?? []) process.stderr.write(`${result.arm}: ${note}\n`);
    },
  });
  const run = { ...ran, settings: { ...ran.settings, piHost } };
  const wall = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  console.log(
    `pi-fold lab · preset ${preset.name} · seed ${seed} · every arm on Pi ${piHost} · ${preset.stages} stages · descriptor ${preset.descriptorTokens} · cap ${preset.providerCapTokens} · wall ${wall}`,
  );
  console.log(formatArmTable(run));
  const paths = await writeLabReports(run, out, {
    title: `pi-fold lab · ${preset.name} preset`,
    notes: [`every arm ran on Pi ${piHost}`, ...(workload.kind === 'shaped' ? SHAPED_LAB_NOTES : []), ...LAB_NOTES],
    measurements: { wall, node: process.version, ...wallByArm },
  });
  console.log(`reports: ${paths.html} · ${paths.summary} · ${paths.csv}`);
}

/**
 * The Pi this process loaded, checked against `--host pi-<version>` when one is named: a lab
 * figure must say which Pi its arms (native included) ran on. `npm run bench` names
 * pi-1.6.0 and runs under lab/peers/run-on-pi.sh; `npm run bench:pi-0.73.1` the pinned one.
 */
function checkedPiHost(host: string | undefined): string {
  const pi = findInstalledPi();
  const loaded = pi === undefined ? 'none' : `${pi.packageName} ${pi.version}`;
  if (host !== undefined && (pi === undefined || host !== `pi-${pi.version}`)) {
    const version = host.replace(/^pi-/, '');
    throw new Error(
      `--host ${host}: this process loaded ${loaded}; run it with bash lab/peers/run-on-pi.sh ${version} lab/run-lab.ts … (0.73.1: npx tsx lab/run-lab.ts …)`,
    );
  }
  return loaded;
}

try {
  await main();
} catch (error) {
  // A bad option is the person's to fix: name it without a stack trace.
  process.stderr.write(`run-lab: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
