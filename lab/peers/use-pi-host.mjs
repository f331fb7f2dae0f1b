/**
 * Run the lab (or `pi-fold replay`) on another Pi version: load with
 *   node --import tsx --import ./lab/peers/use-pi-host.mjs lab/run-lab.ts …
 * with PI_FOLD_PI_HOST set to a folder `lab/peers/install-pi-host.sh <version>` filled
 * (it prints the folder and the Node 22 binary to use). Refuses to start without it.
 */
import { existsSync } from 'node:fs';
import { register } from 'node:module';

const piHome = process.env.PI_FOLD_PI_HOST;
if (piHome === undefined || !existsSync(`${piHome}/node_modules/@earendil-works/pi-coding-agent/package.json`)) {
  process.stderr.write(
    `use-pi-host: PI_FOLD_PI_HOST must name a folder with @earendil-works/pi-coding-agent installed (run lab/peers/install-pi-host.sh <version>); got ${piHome ?? 'nothing'}\n`,
  );
  process.exit(2);
}
register('./pi-host-hooks.mjs', import.meta.url, { data: { piHome } });
