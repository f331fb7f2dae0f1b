import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Timings } from './session-workload.ts';

const CHILD = fileURLToPath(new URL('./load-child.ts', import.meta.url));

/** What one load process reported. */
export interface ChildReport {
  readonly sessions: string[];
  readonly wallMs: number;
  readonly timings: Timings;
}

/**
 * Start `processes` children that together fold `sessions` sessions into one Redis
 * namespace, all at once, and collect their reports. Rejects if any child fails.
 */
export async function runLoad(options: {
  url: string;
  namespace: string;
  prefix: string;
  sessions: number;
  processes: number;
  folds: number;
}): Promise<{ reports: ChildReport[]; wallMs: number }> {
  const perProcess = Math.ceil(options.sessions / options.processes);
  const start = Date.now();
  const runs: Promise<ChildReport>[] = [];
  for (let process_ = 0; process_ < options.processes; process_ += 1) {
    const first = process_ * perProcess;
    const count = Math.min(perProcess, options.sessions - first);
    if (count <= 0) break;
    runs.push(
      runChild([options.url, options.namespace, options.prefix, String(first), String(count), String(options.folds)]),
    );
  }
  const reports = await Promise.all(runs);
  return { reports, wallMs: Date.now() - start };
}

function runChild(args: string[]): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`load child exited ${code}: ${stderr.slice(0, 2_000)}`));
      else resolve(JSON.parse(stdout.trim().split('\n').at(-1)!) as ChildReport);
    });
  });
}
