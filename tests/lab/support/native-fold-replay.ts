import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCli } from '../../../bin/cli.ts';

const fixtures = resolve(import.meta.dirname, '../../fixtures/transcripts');

/**
 * A real Claude Code session (claude-sonnet-4-5, 182 responses, 117k peak): at a 60k budget
 * native compacts several times and fold folds.
 */
const session = join(fixtures, 'claude-code/0d510331-7c2a-45ab-850a-088f3499b4cc.jsonl');

/** What `pi-fold replay` answered and where it wrote its reports. */
export interface ReplayAnswer {
  readonly code: number;
  /** The lines it printed. */
  readonly out: readonly string[];
  readonly outDirectory: string;
}

/**
 * `pi-fold replay` of that session, native against fold at a 60k budget under an 80k cap,
 * into a fresh folder named after `prefix`.
 */
export async function replayNativeAgainstFold(prefix: string): Promise<ReplayAnswer> {
  const outDirectory = join(mkdtempSync(join(tmpdir(), prefix)), 'out');
  const out: string[] = [];
  const code = await runCli(
    ['replay', session, '--arms', 'native,fold', '--budget', '60000', '--cap', '80000', '--out', outDirectory],
    { out: (line) => out.push(line), error: () => undefined },
  );
  return { code, out, outDirectory };
}
