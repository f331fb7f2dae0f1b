import { runCli } from '../../../bin/cli.ts';

/** Run the CLI in-process and capture what it prints. */
export async function runCliCaptured(
  argumentsList: readonly string[],
): Promise<{ exitCode: number; out: string; error: string }> {
  const out: string[] = [];
  const error: string[] = [];
  const exitCode = await runCli(argumentsList, { out: (line) => out.push(line), error: (line) => error.push(line) });
  return { exitCode, out: out.join('\n'), error: error.join('\n') };
}
