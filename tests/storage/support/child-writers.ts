import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./store-writer-child.ts', import.meta.url));

/** What a writer child reported as completed. */
export interface WriterReport {
  readonly blobs: string[];
  readonly folds: { sessionId: string; foldId: string }[];
  readonly states: { sessionId: string; revision: number }[];
  readonly stderr: string;
  readonly exit: { code: number | null; signal: NodeJS.Signals | null };
}

export interface WriterOptions {
  readonly backend: 'fs' | 'sqlite' | 'redis' | 'postgres';
  readonly target: string;
  readonly sessionId: string;
  readonly seed: number;
  /** Stop after this many blobs; omit to write until killed. */
  readonly count?: number;
  /** SIGKILL this many ms after the child says it is ready. */
  readonly killAfterMs?: number;
}

/** Run one writer child and collect its completed writes (parsed from whole lines only). */
export function runWriter(options: WriterOptions): Promise<WriterReport> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      CHILD,
      options.backend,
      options.target,
      options.sessionId,
      String(options.seed),
      ...(options.count === undefined ? [] : [String(options.count)]),
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const report = {
    blobs: [] as string[],
    folds: [] as { sessionId: string; foldId: string }[],
    states: [] as { sessionId: string; revision: number }[],
    stderr: '',
  };
  let pending = '';
  child.stderr?.on('data', (chunk: Buffer) => (report.stderr += chunk.toString('utf8')));
  child.stdout?.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const [kind, first = '', second = ''] = line.split(' ');
      if (kind === 'ready' && options.killAfterMs !== undefined)
        setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
      else if (kind === 'blob') report.blobs.push(first);
      else if (kind === 'fold') report.folds.push({ sessionId: first, foldId: second });
      else if (kind === 'state') report.states.push({ sessionId: first, revision: Number(second) });
    }
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ ...report, exit: { code, signal } }));
  });
}
