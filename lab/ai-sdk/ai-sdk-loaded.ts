import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The version of the `ai` package this process loaded: the root's pin, or the one a loader
 * hook maps `ai` to (lab/peers/run-on-ai7.sh). Read from the package.json above its entry.
 */
export function loadedAiVersion(): string {
  let folder = dirname(fileURLToPath(import.meta.resolve('ai')));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'ai' && manifest.version !== undefined) return manifest.version;
    } catch {
      // no package.json at this level: keep walking up
    }
    const parent = dirname(folder);
    if (parent === folder) return 'unknown';
    folder = parent;
  }
}
