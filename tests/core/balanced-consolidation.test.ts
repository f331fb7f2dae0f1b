import { describe, expect, it } from 'vitest';
import type { FoldRuntime } from '../../core/fold-runtime.ts';
import { driveSession } from '../support/drive-session.ts';

/**
 * docs/behaviour.md B2.5: consolidations stack like a balanced index, so the folds a long
 * session's window shows side by side grow with the log of its history, not with it.
 */

function depthOf(runtime: FoldRuntime, foldId: string): number {
  const record = runtime.view.lattice.record(foldId);
  if (record === undefined || record.kind !== 'consolidation') return 0;
  let deepest = 0;
  for (const part of record.parts) if (part.kind === 'fold') deepest = Math.max(deepest, depthOf(runtime, part.foldId));
  return deepest + 1;
}

describe('consolidation keeps a long window short', () => {
  it.each([
    ['the default threshold', 600, {}],
    [
      'a threshold of 4, where chapters arrive faster than one consolidation a commit',
      900,
      { thresholds: { maxTarget: 0.8, minTarget: 0.4, consolidateAfter: 4, minFoldChars: 8000 } },
    ],
  ] as const)('%s', async (_name, steps, settings) => {
    const { runtime } = await driveSession({ seed: 3, steps, settings, resultChars: [2000, 6000] });
    const after = runtime.view.settings.thresholds.consolidateAfter;
    const roots = runtime.view.visibleFolds;
    const depths = roots.map((placed) => depthOf(runtime, placed.record.id));
    // Consolidations of consolidations formed: the index grew a level above the first.
    expect(Math.max(...depths)).toBeGreaterThanOrEqual(2);
    // At most a few full runs per level stand side by side (the history holds hundreds of chapters).
    expect(roots.length).toBeLessThanOrEqual(4 * after);
    for (const depth of new Set(depths))
      expect(depths.filter((found) => found === depth).length).toBeLessThanOrEqual(2 * after);
  });
});
