import type { FoldRuntime } from '../core/fold-runtime.ts';
import type { TranscriptEntry } from '../ports/transcript-source.port.ts';
import { assistantEntry, seededRandom, sourceLikeText, toolResultEntry, userEntry } from './synthetic-session.ts';

/**
 * Grow a history of `steps` file reads (one call, one 20,000-char source-like result each)
 * through `runtime`, projecting and reporting a provider count after every step, so that
 * the older results fold as a host's would. Searches and peeks are then measured or tested
 * over what folded. Deterministic for a given `seed`.
 */
export async function projectFoldedReads(
  runtime: FoldRuntime,
  options: { seed: number; steps: number },
): Promise<void> {
  const random = seededRandom(options.seed);
  const entries: TranscriptEntry[] = [userEntry('u0', 'go')];
  for (let step = 1; step <= options.steps; step += 1) {
    const call = { id: `c${step}`, name: 'read', arguments: { path: `f${step}` } };
    entries.push(
      assistantEntry(`a${step}`, `note ${step}`, [call]),
      toolResultEntry(`r${step}`, call.id, 'read', sourceLikeText(random, 20_000, 'x')),
    );
    const result = await runtime.project(entries);
    runtime.recordUsage({ input: Math.ceil(result.ledger.totalChars / 4), cacheRead: 0, cacheWrite: 0, output: 10 });
  }
}
