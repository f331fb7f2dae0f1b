/**
 * Count the tool mix of real sessions, and which kinds of tool output their models refer
 * back to: what the lab's `shaped` preset is built from (lab/workload/tool-mix.json).
 *
 *   npm run lab:tool-mix                                   # the four transcripts in tests/fixtures
 *   npx tsx lab/count-tool-mix.ts ~/.pi/agent/sessions/…/*.jsonl --out /tmp/my-mix.json
 *
 * Any transcript `pi-fold replay` reads will do (Pi, Claude Code, Codex, chat trajectories).
 * A table goes to stdout; `--out` writes the counts as JSON (per file and pooled).
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { FoldError } from '../core/fold-error.ts';
import { loadTranscript } from './transcripts/load-transcript.ts';
import { CALL_KINDS, countToolMix, poolToolMix, shares, type ToolMixCounts } from './workload/tool-mix.ts';

const DEFAULT_TRANSCRIPTS = 'tests/fixtures/transcripts';

/** The transcript files under a path (a file, or every .jsonl/.json below a folder), sorted. */
function transcriptFiles(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.jsonl') || name.endsWith('.traj.json'))
    .map((name) => join(path, name))
    .sort();
}

const percent = (value: number): string => `${Math.round(value * 100)} %`;

function row(name: string, counts: ToolMixCounts): string {
  const calls = CALL_KINDS.reduce((sum, kind) => sum + counts.calls[kind], 0);
  const refs = CALL_KINDS.reduce((sum, kind) => sum + counts.references[kind], 0);
  const mix = shares(counts.calls);
  const referred = shares(counts.references);
  return `| ${name} | ${calls} | ${CALL_KINDS.map((kind) => percent(mix[kind])).join(' | ')} | ${refs} | ${CALL_KINDS.map((kind) => percent(referred[kind])).join(' | ')} |`;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true });
  const files = (positionals.length === 0 ? [DEFAULT_TRANSCRIPTS] : positionals).flatMap(transcriptFiles);
  if (files.length === 0) throw new FoldError('SETTINGS.INVALID', 'no transcript files (.jsonl, .traj.json) found');
  const perFile: Record<string, ToolMixCounts> = {};
  for (const file of files) perFile[relative(process.cwd(), file)] = countToolMix((await loadTranscript(file)).entries);
  const pooled = poolToolMix(Object.values(perFile));
  const kinds = CALL_KINDS.join(' | ');
  console.log(`| transcript | calls | ${kinds} | references | ${kinds} |`);
  console.log(`|---|---|${CALL_KINDS.map(() => '---|').join('')}---|${CALL_KINDS.map(() => '---|').join('')}`);
  for (const [name, counts] of Object.entries(perFile)) console.log(row(name, counts));
  console.log(row('pooled', pooled));
  if (values.out !== undefined) {
    writeFileSync(values.out, `${JSON.stringify({ transcripts: perFile, pooled }, null, 2)}\n`);
    console.log(`counts: ${values.out}`);
  }
}

try {
  await main();
} catch (error) {
  process.stderr.write(`count-tool-mix: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
