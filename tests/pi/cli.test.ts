import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundlePiExtension } from '../../scripts/bundle-pi-extension.ts';

/** Run a command with stdin closed (Pi reads piped stdin into the prompt otherwise). */
function run(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeout: number },
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: options.timeout,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolvePromise({ stdout, stderr })
        : reject(new Error(`${args.join(' ')} exited ${code}: ${stderr.slice(0, 2000)}`)),
    );
  });
}
const checkout = resolve(import.meta.dirname, '../..');
// The root's Pi 0.x, or the CLI the compatibility job names (Pi 1.x, see compat/node22).
const cli = process.env.PI_FOLD_PI_CLI ?? join(checkout, 'node_modules/@mariozechner/pi-coding-agent/dist/cli.js');
const provider = join(checkout, 'tests/pi/support/scripted-provider-extension.ts');

function environment(agentDirectory: string): NodeJS.ProcessEnv {
  return {
    ...process.env,
    PI_CODING_AGENT_DIR: agentDirectory,
    PI_FOLD_CONFIG_DIR: mkdtempSync(join(tmpdir(), 'pi-fold-cli-config-')),
  };
}

/** Every file under a directory, recursively (to find the fold store beside the sessions). */
function filesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

describe('pi: the real CLI, offline', () => {
  it('`pi -p` with `-e ./adapters/pi/index.ts` runs the agent tool and keeps state beside the session', async () => {
    const agentDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-cli-agent-'));
    const { stdout } = await run(
      process.execPath,
      [
        cli,
        '-p',
        '--provider',
        'scripted',
        '--model',
        's1',
        '-e',
        provider,
        '-e',
        join(checkout, 'adapters/hosts/pi/index.ts'),
        'hello',
      ],
      { cwd: checkout, env: environment(agentDirectory), timeout: 90_000 },
    );
    expect(stdout).toMatch(
      /pi-fold says: budget 183616 tokens · occupancy [\d.]+% \(≈\d+ tokens\) · cost-scheduled: commits when that is cheaper, keeps ≥20000 raw tokens, never past 0\.8/,
    );
    const files = filesUnder(join(agentDirectory, 'sessions'));
    expect(files.some((file) => file.endsWith('.jsonl'))).toBe(true);
    expect(files.some((file) => file.includes(`${join('pi-fold', '')}`))).toBe(true);
  }, 120_000);

  it('`pi install <checkout>` into a fresh agent dir, then a run uses the package', async () => {
    // The package's Pi entry is the bundle (package.json "pi.extensions"): build it as `npm run build:pi` does.
    await bundlePiExtension();
    const agentDirectory = mkdtempSync(join(tmpdir(), 'pi-fold-cli-install-'));
    const env = environment(agentDirectory);
    await run(process.execPath, [cli, 'install', checkout], { cwd: agentDirectory, env, timeout: 90_000 });
    const settings = JSON.parse(readFileSync(join(agentDirectory, 'settings.json'), 'utf8')) as { packages: string[] };
    expect(settings.packages.length).toBe(1);
    const { stdout } = await run(
      process.execPath,
      [cli, '-p', '--provider', 'scripted', '--model', 's1', '-e', provider, 'hello'],
      { cwd: agentDirectory, env, timeout: 90_000 },
    );
    expect(stdout).toMatch(/pi-fold says: budget 183616 tokens/);
  }, 120_000);
});
