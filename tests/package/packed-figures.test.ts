import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';

/**
 * docs/install.md's figures for the packed tarball (packed size, unpacked size, files) against
 * `npm pack --dry-run --json` of the built package. They need dist/, which `npm test` does not
 * build: `.ci/run` runs this file again after `npm pack` with PI_FOLD_PACKED_FIGURES=required,
 * where a missing build is a failure rather than a skip. Within 3%: the figures are rounded.
 */
const root = resolve(import.meta.dirname, '../..');
const required = process.env.PI_FOLD_PACKED_FIGURES === 'required';
const built = existsSync(join(root, 'dist/bin/pi-fold.js')) && existsSync(join(root, 'dist/pi-extension/pi-fold.js'));

it.skipIf(!built && !required)("docs/install.md's package figures match npm pack of the build", () => {
  expect(built, 'dist/ is not built: run npm run build first').toBe(true);
  const stated =
    /Measured for 0\.1\.0 \(`npm pack --dry-run --json` after `npm run build`\): (\d+) kB packed,\s+([\d.]+) MB unpacked, (\d+) files/.exec(
      readFileSync(join(root, 'docs/install.md'), 'utf8'),
    );
  expect(stated, 'docs/install.md states no packed figures in the expected words').not.toBeNull();
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8' }),
  ) as { size: number; unpackedSize: number; entryCount: number }[];
  const near = (actual: number, figure: number, what: string) =>
    expect(
      Math.abs(actual - figure) / figure,
      `${what}: measured ${actual}, docs/install.md says ${figure}`,
    ).toBeLessThanOrEqual(0.03);
  near(packed!.size / 1000, Number(stated![1]), 'packed kB');
  near(packed!.unpackedSize / 1_000_000, Number(stated![2]), 'unpacked MB');
  near(packed!.entryCount, Number(stated![3]), 'files');
});
