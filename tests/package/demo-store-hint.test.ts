import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { expect, it } from 'vitest';
import { runCli } from '../../bin/cli.ts';

/**
 * `npm run demo` leaves its session in a store: it must say where, and the `pi-fold view`
 * line it suggests must work as printed (here through the CLI's own entry, in-process).
 */
const root = resolve(import.meta.dirname, '../..');

it('the demo says where its store is and suggests a pi-fold view line that works', async () => {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', 'examples/demo/run-demo.ts', '--requests', '60', '--quiet'],
    { cwd: root, encoding: 'utf8', timeout: 120_000 },
  );
  expect(result.status, result.stderr).toBe(0);
  const kept = /the session's store is kept in (\S+) \(a fresh temporary folder; --store-root DIR chooses one\)/.exec(
    result.stdout,
  );
  expect(kept, result.stdout.slice(-600)).not.toBeNull();
  const store = kept![1]!;
  expect(existsSync(join(store, 'sessions'))).toBe(true);
  const suggested = /see what folding did, as one HTML page: npx pi-fold (view \S+ --out \S+)$/m.exec(result.stdout);
  expect(suggested).not.toBeNull();
  const out = join(mkdtempSync(join(tmpdir(), 'pi-fold-demo-view-')), 'page.html');
  const [command, target] = suggested![1]!.split(' ');
  expect(target).toBe(store);
  const errors: string[] = [];
  const code = await runCli([command!, target!, '--out', out], {
    out: () => undefined,
    error: (line) => errors.push(line),
  });
  expect(code, errors.join('\n')).toBe(0);
  expect(readFileSync(out, 'utf8')).toContain('What folding did');
}, 180_000);
