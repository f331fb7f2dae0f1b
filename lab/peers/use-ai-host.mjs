/**
 * Run the AI SDK lab on another `ai` (ai@7 from compat/node22): load with
 *   node --import tsx --import ./lab/peers/use-ai-host.mjs lab/run-ai-sdk-lab.ts …
 * with PI_FOLD_AI_HOST set to a folder whose node_modules holds `ai` (lab/peers/run-on-ai7.sh
 * sets it to compat/node22). Refuses to start without it.
 */
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const aiHome = process.env.PI_FOLD_AI_HOST;
if (aiHome === undefined || !existsSync(`${aiHome}/node_modules/ai/package.json`)) {
  process.stderr.write(
    `use-ai-host: PI_FOLD_AI_HOST must name a folder with ai installed (e.g. compat/node22 after its npm ci); got ${aiHome ?? 'nothing'}\n`,
  );
  process.exit(2);
}
register('./ai-host-hooks.mjs', import.meta.url, { data: { aiHome } });
