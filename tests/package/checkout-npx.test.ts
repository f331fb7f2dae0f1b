import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `npx pi-fold` as the README has a newcomer type it: in a checkout right after `npm ci`, with
 * nothing built. npm links the project's own `bin` for npx, so the entry must exist without a
 * build. The registry is unreachable and the npm cache fresh, so nothing can come from outside.
 */
const root = resolve(import.meta.dirname, '../..');

function offlineNpm(cwd: string, argumentsList: readonly string[]) {
  const scratch = mkdtempSync(join(tmpdir(), 'pi-fold-npx-'));
  return spawnSync('npx', argumentsList, {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      npm_config_cache: join(scratch, 'cache'),
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_fetch_retries: '0',
      npm_config_update_notifier: 'false',
    },
  });
}

describe('the pi-fold command in a checkout', () => {
  it('npx pi-fold --help answers from the sources, whether or not dist/ was built', () => {
    const result = offlineNpm(root, ['pi-fold', '--help']);
    expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
    expect(result.stdout).toContain('usage: pi-fold <command> [arguments]');
  });

  it('in a package layout (no sources beside the entry) the entry runs dist/, even where tsx resolves', () => {
    const folder = mkdtempSync(join(tmpdir(), 'pi-fold-layout-'));
    mkdirSync(join(folder, 'bin'));
    mkdirSync(join(folder, 'dist/bin'), { recursive: true });
    copyFileSync(join(root, 'bin/pi-fold.mjs'), join(folder, 'bin/pi-fold.mjs'));
    writeFileSync(
      join(folder, 'dist/bin/pi-fold.js'),
      "console.log('built entry ran', process.argv.slice(2).join(' '));\n",
    );
    symlinkSync(join(root, 'node_modules'), join(folder, 'node_modules'));
    const result = spawnSync(process.execPath, [join(folder, 'bin/pi-fold.mjs'), '--version'], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout.trim()).toBe('built entry ran --version');
  });

  it('with neither sources nor a build, the entry says what to run instead of a resolver error', () => {
    const folder = mkdtempSync(join(tmpdir(), 'pi-fold-layout-'));
    mkdirSync(join(folder, 'bin'));
    copyFileSync(join(root, 'bin/pi-fold.mjs'), join(folder, 'bin/pi-fold.mjs'));
    const result = spawnSync(process.execPath, [join(folder, 'bin/pi-fold.mjs'), '--help'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('npm run build');
    expect(result.stderr).not.toContain('ERR_MODULE_NOT_FOUND');
  });
});
