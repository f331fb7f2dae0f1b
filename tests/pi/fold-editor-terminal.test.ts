import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const checkout = resolve(import.meta.dirname, '../..');
const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const session = `pi-fold-editor-${process.pid}`;

function screen(): string {
  return execFileSync('tmux', ['capture-pane', '-t', session, '-p'], { encoding: 'utf8' });
}

/** Poll the terminal until `pattern` shows, so the test waits for Pi rather than for a clock. */
async function waitFor(pattern: RegExp, limitMs = 60_000): Promise<string> {
  const started = Date.now();
  for (;;) {
    const text = screen();
    if (pattern.test(text)) return text;
    if (Date.now() - started > limitMs) throw new Error(`terminal never showed ${pattern}; last screen:\n${text}`);
    await new Promise((done) => setTimeout(done, 250));
  }
}

function keys(...sequence: string[]): void {
  execFileSync('tmux', ['send-keys', '-t', session, ...sequence]);
}

afterAll(() => {
  if (hasTmux) spawnSync('tmux', ['kill-session', '-t', session]);
});

// A real interactive Pi in a real terminal (tmux): the editor draws, and its keys run the
// same validated actions as the agent's tool.
describe.skipIf(!hasTmux)('pi: /fold-editor in a real terminal', () => {
  it('opens from the command line, shows the window map, and pins from the keyboard', async () => {
    // PI_OFFLINE: Pi 1.x downloads fd and ripgrep at start-up when they are missing; offline, a
    // slow DNS failure once kept its start-up "in progress" past this test's wait (CI, Pi 1.6.0).
    const env = [
      `PI_CODING_AGENT_DIR=${mkdtempSync(join(tmpdir(), 'pi-fold-tmux-agent-'))}`,
      `PI_FOLD_CONFIG_DIR=${mkdtempSync(join(tmpdir(), 'pi-fold-tmux-config-'))}`,
      'PI_OFFLINE=1',
    ];
    const command = `cd ${checkout} && env ${env.join(' ')} ${process.execPath} ${process.env.PI_FOLD_PI_CLI ?? 'node_modules/@mariozechner/pi-coding-agent/dist/cli.js'} --provider scripted --model s1 -e tests/pi/support/scripted-provider-extension.ts -e adapters/hosts/pi/index.ts`;
    execFileSync('tmux', ['new-session', '-d', '-s', session, '-x', '120', '-y', '36', command]);
    await waitFor(/s1\s*$/m);
    keys('hello', 'Enter');
    await waitFor(/pi-fold says: budget 183616 tokens/);
    keys('/fold-editor');
    await new Promise((done) => setTimeout(done, 500));
    keys('Enter');
    const editor = await waitFor(/pi-fold editor/);
    expect(editor).toMatch(/% of 183616 tokens · cost-scheduled · ≥20000 raw kept · fence 80%/);
    expect(editor).toMatch(/folds 0 · pending marks 0 · pins 0/);
    expect(editor).toMatch(/user · hello/);
    keys('p');
    const pinned = await waitFor(/pinned 1 entry/);
    expect(pinned).toMatch(/pins 1/);
    keys('Escape');
  }, 120_000);
});
