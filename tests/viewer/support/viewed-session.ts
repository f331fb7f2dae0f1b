import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readLoop } from '../../../testing/vercel-ai/scripted-model.ts';
import { type LoopRun, runLoop } from '../../vercel-ai/support/run-loop.ts';

export const VIEWED_SESSION = 'viewed-session';

/**
 * A real AI SDK tool loop (generateText, MockLanguageModelV3) that folds into a filesystem
 * store, then is disposed so its request log is written: what a user's store holds.
 */
export async function recordViewedSession(
  steps = 48,
  beforeDispose?: (run: LoopRun) => Promise<void>,
  settings: Record<string, unknown> = {},
): Promise<{ root: string; run: LoopRun }> {
  const root = mkdtempSync(join(tmpdir(), 'pi-fold-viewer-'));
  const run = await runLoop({
    kind: 'generateText',
    script: readLoop(steps),
    maxSteps: steps + 5,
    folding: {
      sessionId: VIEWED_SESSION,
      store: 'fs',
      storeRoot: root,
      settings: { providerInputBudget: 30_000, ...settings },
    },
  });
  await beforeDispose?.(run);
  await run.folding.dispose();
  return { root, run };
}

/** SHA-256 of every file under a directory, by relative path: proof that nothing was written. */
export function treeDigest(directory: string): Record<string, string> {
  const digest: Record<string, string> = {};
  const walk = (path: string, relative: string) => {
    for (const name of readdirSync(path)) {
      const child = join(path, name);
      const key = relative === '' ? name : `${relative}/${name}`;
      if (statSync(child).isDirectory()) walk(child, key);
      else digest[key] = createHash('sha256').update(readFileSync(child)).digest('hex');
    }
  };
  walk(directory, '');
  return digest;
}
