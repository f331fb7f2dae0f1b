import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createFoldRuntime } from '../../composition/index.ts';
import { bundlePiExtension } from '../../scripts/bundle-pi-extension.ts';

/**
 * `pi-fold doctor` on scratch Pi homes set up with the real Pi CLI (`pi install`): a tarball
 * registered the way a newcomer first tries, a bad pi-fold settings file and a damaged session
 * store are each a PROBLEM with what to do (exit 1); a home with pi-fold installed from a
 * folder says where it loads from and exits 0.
 */
const root = resolve(import.meta.dirname, '../..');
const piCli = join(root, 'node_modules/@mariozechner/pi-coding-agent/dist/cli.js');

function scratchHome() {
  const home = mkdtempSync(join(tmpdir(), 'pi-fold-doctor-'));
  const paths = { agent: join(home, 'agent'), config: join(home, 'config'), cwd: join(home, 'project') };
  for (const path of Object.values(paths)) mkdirSync(path, { recursive: true });
  return paths;
}

function pi(home: ReturnType<typeof scratchHome>, ...argumentsList: string[]): void {
  execFileSync(process.execPath, [piCli, ...argumentsList], {
    cwd: home.cwd,
    env: { ...process.env, PI_CODING_AGENT_DIR: home.agent },
    stdio: 'pipe',
    timeout: 60_000,
  });
}

function doctor(home: ReturnType<typeof scratchHome>): { status: number | null; out: string } {
  // Run from the scratch project, so tsx is named by its file (the project has no node_modules).
  const tsx = pathToFileURL(join(root, 'node_modules/tsx/dist/loader.mjs')).href;
  const result = spawnSync(process.execPath, ['--import', tsx, join(root, 'bin/pi-fold.ts'), 'doctor'], {
    cwd: home.cwd,
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      ...process.env,
      PI_CODING_AGENT_DIR: home.agent,
      PI_FOLD_CONFIG_DIR: home.config,
      PATH: `${join(root, 'node_modules/.bin')}${delimiter}${process.env.PATH ?? ''}`,
    },
  });
  return { status: result.status, out: `${result.stdout}${result.stderr}` };
}

describe('pi-fold doctor', () => {
  it('names a registered .tgz, a bad settings file and a damaged store, each with what to do, and exits 1', async () => {
    const home = scratchHome();
    const packageFolder = join(home.cwd, 'package');
    mkdirSync(packageFolder);
    writeFileSync(join(packageFolder, 'package.json'), '{"name":"pi-fold","version":"0.1.0"}\n');
    execFileSync('tar', ['czf', 'pi-fold-0.1.0.tgz', 'package'], { cwd: home.cwd });
    pi(home, 'install', './pi-fold-0.1.0.tgz');
    writeFileSync(join(home.config, 'settings.json'), '{ "maxTarget": 0.8,');
    const store = join(home.agent, 'sessions', '--project--', 'pi-fold');
    const composed = await createFoldRuntime({ sessionId: 'damaged', store: 'fs', storeRoot: store });
    await composed.runtime.act({ action: 'status' });
    await composed.ports.backingFoldStore.putBlob('bytes that will be damaged on disk');
    await composed.dispose();
    const blob = readdirSync(join(store, 'blobs'), { recursive: true, withFileTypes: true }).find((entry) =>
      entry.isFile(),
    )!;
    writeFileSync(join(blob.parentPath, blob.name), 'not the bytes its name hashes');

    const result = doctor(home);
    expect(result.status, result.out).toBe(1);
    expect(result.out).toMatch(/^ok {6}pi: Pi 0\.73\.1 \(@mariozechner\/pi-coding-agent\)/m);
    expect(result.out).toMatch(/^ok {6}node: Node \d+\.\d+/m);
    expect(result.out).toMatch(
      /^PROBLEM Pi settings: package \S*pi-fold-0\.1\.0\.tgz is a tarball: Pi registers it but cannot load it/m,
    );
    expect(result.out).toContain('→ remove it (pi remove ');
    expect(result.out).toMatch(/^PROBLEM pi-fold settings: .*settings\.json is not a JSON object/m);
    expect(result.out).toMatch(/^PROBLEM session stores: .*pi-fold: 1 problem \(STORE\.HASH_MISMATCH/m);
    expect(result.out).toContain(`→ pi-fold verify ${store} lists each`);
    expect(result.out).toMatch(/3 problems found$/m);
  }, 120_000);

  it('says where pi-fold loads from in a healthy install and exits 0', async () => {
    await bundlePiExtension();
    const home = scratchHome();
    pi(home, 'install', root);
    const result = doctor(home);
    expect(result.status, result.out).toBe(0);
    expect(result.out).toContain(`pi-fold 0.1.0 loads from ${join(root, 'dist/pi-extension/pi-fold.js')}`);
    expect(result.out).not.toContain('PROBLEM');
    expect(result.out).toMatch(/no problems found$/m);
  }, 120_000);
});
